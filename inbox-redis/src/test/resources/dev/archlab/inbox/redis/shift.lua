-- Test only: moves one bucket's stored times back by ARGV[1] microseconds, the same as the server
-- clock moving forward for every comparison the scripts make.
-- KEYS: 1 PROCESSING index, 2 DONE index (createdAt), 3 DEAD index, 4 DONE index (updatedAt)
-- ARGV: 1 microseconds, 2 record key prefix, 3 minus the microseconds (a string: Lua would print a
--       large number in exponent form, which HINCRBY refuses)
local d = tonumber(ARGV[1])
for i = 1, 3 do
  local entries = redis.call('ZRANGE', KEYS[i], 0, -1, 'WITHSCORES')
  for j = 1, #entries, 2 do
    local id, score = entries[j], tonumber(entries[j + 1])
    local key = ARGV[2] .. id
    if redis.call('EXISTS', key) == 1 then
      for _, field in ipairs({'lu', 'ca', 'ua'}) do
        if redis.call('HEXISTS', key, field) == 1 then
          redis.call('HINCRBY', key, field, ARGV[3])
        end
      end
    end
    redis.call('ZADD', KEYS[i], string.format('%.0f', score - d), id)
  end
end
local updated = redis.call('ZRANGE', KEYS[4], 0, -1, 'WITHSCORES')
for j = 1, #updated, 2 do
  redis.call('ZADD', KEYS[4], string.format('%.0f', tonumber(updated[j + 1]) - d), updated[j])
end
return 1
