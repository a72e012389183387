-- initialize: creates the slot's state (capacity, no holders) unless any of it exists: existing state
-- is never overwritten (a slot at 0 remaining stays at 0), a partial state is left for reconcile to
-- rebuild from the ledger, and a closed slot stays closed.
--
-- KEYS[1] holders   KEYS[2] meta   (layout in hold.lua)
-- ARGV[1] capacity, or "capacity|opensAt" (epoch microseconds)   ARGV[2] keepUntil (epoch ms): the slot's keys expire then ('' = never)
if redis.call('EXISTS', KEYS[1], KEYS[2]) > 0 then
  return 0
end
redis.call('ZADD', KEYS[1], '+inf', '')
redis.call('HSET', KEYS[2], '', ARGV[1])
if ARGV[2] ~= '' then
  redis.call('PEXPIREAT', KEYS[1], ARGV[2])
  redis.call('PEXPIREAT', KEYS[2], ARGV[2])
end
return 1
