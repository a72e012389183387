-- release: removes one student's hold. Replies 1 only for the call that removed it.
--
-- KEYS[1] capacity   KEYS[2] holders   KEYS[3] meta
-- ARGV[1] student
local removed = redis.call('ZREM', KEYS[2], ARGV[1])
if removed == 1 then
  redis.call('HDEL', KEYS[3], ARGV[1])
end
return removed
