-- release and retry-dead, the operator's changes to one record, timed by the server's clock.
-- KEYS: 1 record, 2 PROCESSING index, 3 DEAD index
-- ARGV: 1 RELEASE (end a PROCESSING record's lease now) or RETRY_DEAD (forget a DEAD record),
--       2 message id
-- Returns {1} if the record was changed, else {0}.
local key = KEYS[1]
local st = redis.call('HGET', key, 'st')
if ARGV[1] == 'RELEASE' then
  if st ~= 'PROCESSING' then
    return {0}
  end
  local t = redis.call('TIME')
  local now = string.format('%.0f', tonumber(t[1]) * 1000000 + tonumber(t[2]))
  redis.call('HSET', key, 'lu', now, 'ua', now)
  return {1}
elseif ARGV[1] == 'RETRY_DEAD' then
  if st ~= 'DEAD' then
    return {0}
  end
  redis.call('DEL', key)
  redis.call('ZREM', KEYS[3], ARGV[2])
  return {1}
end
return redis.error_reply('unknown admin action ' .. ARGV[1])
