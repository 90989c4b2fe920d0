-- list, for one bucket of one consumer: the oldest records of a state by createdAt, at least
-- `limit` of them if there are, plus every record tied with the last one on createdAt (the client
-- merges buckets and orders ties by name). Index entries of expired records are skipped.
-- KEYS: 1 the state's index (createdAt)
-- ARGV: 1 state, 2 limit, 3 record key prefix
-- Returns a flat array: id, HGETALL, id, HGETALL, ...
local limit = tonumber(ARGV[2])
local out = {}
local found = 0
local lastScore = nil
local start = 0
local page = 256
while true do
  local batch = redis.call('ZRANGE', KEYS[1], start, start + page - 1, 'WITHSCORES')
  if #batch == 0 then
    return out
  end
  for i = 1, #batch, 2 do
    local id, score = batch[i], tonumber(batch[i + 1])
    if found >= limit and score ~= lastScore then
      return out
    end
    local key = ARGV[3] .. id
    if redis.call('HGET', key, 'st') == ARGV[1] then
      out[#out + 1] = id
      out[#out + 1] = redis.call('HGETALL', key)
      found = found + 1
      lastScore = score
    end
  end
  start = start + page
end
