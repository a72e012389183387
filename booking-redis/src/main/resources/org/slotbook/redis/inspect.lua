-- inspect: the slot's capacity and live holders by the server's clock. Read only.
--
-- KEYS[1] holders   KEYS[2] meta   (layout in hold.lua)
--
-- Replies {} when the slot has no state, only part of it, or is closed; else
-- {capacity, student, record, student, record, ...} where record is "expiry|takenAt|requestId" (capacity
-- as stored: "capacity" or "capacity|opensAt").
local capacity = redis.call('HGET', KEYS[2], '')
if not capacity or capacity == 'closed' or redis.call('EXISTS', KEYS[1]) == 0 then
  return {}
end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local reply = {capacity}
local live = redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. now, '+inf')
for i = 1, #live do
  if live[i] ~= '' then
    reply[#reply + 1] = live[i]
    reply[#reply + 1] = redis.call('HGET', KEYS[2], live[i]) or ''
  end
end
return reply
