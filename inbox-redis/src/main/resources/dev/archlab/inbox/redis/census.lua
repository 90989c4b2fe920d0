-- census, for one page of one bucket's DONE index (by updatedAt): counts the DONE records that still
-- exist and were updated strictly before the cut-off. Read-only, so a page is one short script and
-- the server is never held for a whole bucket; index entries of records Redis expired are skipped.
-- KEYS: 1 DONE index (updatedAt)
-- ARGV: 1 cut-off (microseconds, exclusive), 2 offset, 3 page size, 4 record key prefix
-- Returns {DONE records counted, entries looked at}.
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[1], 'LIMIT',
  tonumber(ARGV[2]), tonumber(ARGV[3]))
local counted = 0
for _, id in ipairs(ids) do
  local r = redis.call('HMGET', ARGV[4] .. id, 'st', 'ua')
  if r[1] == 'DONE' and tonumber(r[2]) < tonumber(ARGV[1]) then
    counted = counted + 1
  end
end
return {counted, #ids}
