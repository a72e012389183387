-- inspect: the slot's capacity and live holders at a given instant. Read only.
--
-- KEYS[1] capacity   KEYS[2] holders   KEYS[3] meta
-- ARGV[1] now (epoch ms)
--
-- Replies {} when the slot has no state, else {capacity, student, score, meta, student, score, meta, ...}
-- where meta is "takenAt|requestId" ('' when unknown).
local capacity = redis.call('GET', KEYS[1])
if not capacity then
  return {}
end
local reply = {capacity}
local live = redis.call('ZRANGEBYSCORE', KEYS[2], '(' .. ARGV[1], '+inf', 'WITHSCORES')
for i = 1, #live, 2 do
  reply[#reply + 1] = live[i]
  reply[#reply + 1] = live[i + 1]
  reply[#reply + 1] = redis.call('HGET', KEYS[3], live[i]) or ''
end
return reply
