-- confirm: pins a student's live holder (the booking is confirmed) if the given request put it there.
-- Does nothing otherwise, nor on a slot without state, with partial state or closed.
--
-- KEYS[1] holders   KEYS[2] meta   (layout in hold.lua)
-- ARGV[1] student   ARGV[2] request id   ARGV[3] the score that means "pinned"
local got = redis.call('HMGET', KEYS[2], '', ARGV[1])
local record = got[2]
if not got[1] or got[1] == 'closed' or not record or redis.call('EXISTS', KEYS[1]) == 0 then
  return 0
end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local first = string.find(record, '|', 1, true)
local second = string.find(record, '|', first + 1, true)
if string.sub(record, second + 1) ~= ARGV[2] or tonumber(string.sub(record, 1, first - 1)) <= now then
  return 0
end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[3] .. string.sub(record, first))
return 1
