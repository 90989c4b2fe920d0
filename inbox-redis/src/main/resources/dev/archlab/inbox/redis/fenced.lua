-- complete, fail, mark-dead and extend: a change the claim's fencing token must still own
-- (RecordStateMachine.owns in inbox-core), atomic on the server and timed by its clock.
-- KEYS: 1 record, 2 PROCESSING index, 3 DONE index (createdAt), 4 DEAD index,
--       5 DONE index (updatedAt)
-- ARGV: 1 fencing token, 2 transition (DONE, RETRY, PARK, EXTEND), 3 message id,
--       4 microseconds (RETRY: retry delay, EXTEND: lease) or milliseconds (DONE: retention),
--       5 '1' if a value is given, 6 the value (DONE: result, RETRY and PARK: error)
-- Returns {'OK', now, HGETALL} after the change, {'NONE'} if there is no record, or
-- {'REFUSED', state, attempts} if the claim does not own it.
local key, id = KEYS[1], ARGV[3]
local r = redis.call('HMGET', key, 'st', 'at', 'ca')
if not r[1] then
  return {'NONE'}
end
if r[1] ~= 'PROCESSING' or tonumber(r[2]) ~= tonumber(ARGV[1]) then
  return {'REFUSED', r[1], r[2]}
end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local function num(x) return string.format('%.0f', x) end
local transition, amount, given, value = ARGV[2], tonumber(ARGV[4]), ARGV[5] == '1', ARGV[6]
if transition == 'DONE' then
  redis.call('HSET', key, 'st', 'DONE', 'ua', num(now))
  redis.call('HDEL', key, 'lu')
  if given then
    redis.call('HSET', key, 'rs', value)
  else
    redis.call('HDEL', key, 'rs')
  end
  redis.call('ZREM', KEYS[2], id)
  redis.call('ZADD', KEYS[3], r[3], id)
  redis.call('ZADD', KEYS[5], num(now), id)
  -- The dedup window is Redis's own expiry, set in the same step as the completion.
  redis.call('PEXPIRE', key, amount)
elseif transition == 'RETRY' then
  redis.call('HSET', key, 'lu', num(now + amount), 'ua', num(now))
  if given then
    redis.call('HSET', key, 'er', value)
  else
    redis.call('HDEL', key, 'er')
  end
elseif transition == 'PARK' then
  redis.call('HSET', key, 'st', 'DEAD', 'ua', num(now))
  redis.call('HDEL', key, 'lu')
  if given then
    redis.call('HSET', key, 'er', value)
  else
    redis.call('HDEL', key, 'er')
  end
  redis.call('ZREM', KEYS[2], id)
  redis.call('ZADD', KEYS[4], r[3], id)
elseif transition == 'EXTEND' then
  redis.call('HSET', key, 'lu', num(now + amount), 'ua', num(now))
else
  return redis.error_reply('unknown transition ' .. transition)
end
return {'OK', num(now), redis.call('HGETALL', key)}
