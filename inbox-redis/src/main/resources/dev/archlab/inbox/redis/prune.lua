-- prune, for one bucket of one consumer: deletes DONE records updated strictly before the cut-off,
-- and drops the index entries of DONE records Redis already expired.
-- KEYS: 1 DONE index (createdAt), 2 DONE index (updatedAt)
-- ARGV: 1 cut-off (microseconds, exclusive), 2 most entries to look at, 3 record key prefix
-- Returns {deleted, entries looked at}.
local ids = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', '(' .. ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
local deleted = 0
for _, id in ipairs(ids) do
  local key = ARGV[3] .. id
  local r = redis.call('HMGET', key, 'st', 'ua')
  local done = r[1] == 'DONE'
  if done and tonumber(r[2]) < tonumber(ARGV[1]) then
    redis.call('DEL', key)
    deleted = deleted + 1
  end
  -- Deleted now, expired by Redis, or (never expected) no longer DONE: the entries are stale.
  if not done or redis.call('EXISTS', key) == 0 then
    redis.call('ZREM', KEYS[1], id)
    redis.call('ZREM', KEYS[2], id)
  end
end
return {deleted, #ids}
