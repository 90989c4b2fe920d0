-- begin: the claim decision of docs/DESIGN.md (RecordStateMachine.begin in inbox-core), atomic on
-- the server and timed by its clock.
-- KEYS: 1 record, 2 PROCESSING index, 3 DONE index (createdAt), 4 DEAD index,
--       5 DONE index (updatedAt)
-- ARGV: 1 lease (microseconds), 2 maxAttempts, 3 '1' if a payload hash is given, 4 payload hash,
--       5 message id, 6 format of the error of a record that died at its last attempt (%d attempts)
-- Returns {decision, now, HGETALL of the record}; decision MISMATCH leaves the record unchanged.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local function num(x) return string.format('%.0f', x) end
local key, id = KEYS[1], ARGV[5]
local lease = tonumber(ARGV[1])
if redis.call('EXISTS', key) == 0 then
  redis.call('HSET', key, 'st', 'PROCESSING', 'at', '1', 'lu', num(now + lease),
    'ca', num(now), 'ua', num(now))
  if ARGV[3] == '1' then
    redis.call('HSET', key, 'ph', ARGV[4])
  end
  redis.call('ZADD', KEYS[2], num(now), id)
  -- An earlier DONE record of this id may have expired and left its index entries behind.
  redis.call('ZREM', KEYS[3], id)
  redis.call('ZREM', KEYS[5], id)
  return {'CLAIMED', num(now), redis.call('HGETALL', key)}
end
local r = redis.call('HMGET', key, 'st', 'at', 'lu', 'ph', 'er', 'ca')
local st, at, lu, ph, er, ca = r[1], tonumber(r[2]), r[3], r[4], r[5], r[6]
if ARGV[3] == '1' and ph and ph ~= ARGV[4] then
  return {'MISMATCH', num(now), {}}
end
if st == 'DONE' then
  return {'DUPLICATE', num(now), redis.call('HGETALL', key)}
elseif st == 'DEAD' then
  return {'DEAD', num(now), redis.call('HGETALL', key)}
end
if now < tonumber(lu) then
  return {'IN_FLIGHT', num(now), redis.call('HGETALL', key)}
end
if at >= tonumber(ARGV[2]) then
  local reason = er
  if not reason then
    reason = string.format(ARGV[6], at)
  end
  redis.call('HSET', key, 'st', 'DEAD', 'ua', num(now), 'er', reason)
  redis.call('HDEL', key, 'lu')
  redis.call('ZREM', KEYS[2], id)
  redis.call('ZADD', KEYS[4], ca, id)
  return {'DIED', num(now), redis.call('HGETALL', key)}
end
-- A PROCESSING record keeps an error only while it waits for the retry of a recorded failure.
local decision = 'TAKEN_OVER'
if er then
  decision = 'RETRIED'
end
redis.call('HSET', key, 'at', tostring(at + 1), 'lu', num(now + lease), 'ua', num(now))
redis.call('HDEL', key, 'er')
return {decision, num(now), redis.call('HGETALL', key)}
