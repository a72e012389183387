-- close: the slot was called off. Drops its holders and leaves only a closed marker, which expires at
-- keepUntil, so hold answers 'C' and init and reconcile do not recreate the slot.
--
-- KEYS[1] holders   KEYS[2] meta   (layout in hold.lua)
-- ARGV[1] keepUntil (epoch ms, '' = never)
redis.call('DEL', KEYS[1], KEYS[2])
redis.call('HSET', KEYS[2], '', 'closed')
if ARGV[1] ~= '' then
  redis.call('PEXPIREAT', KEYS[2], ARGV[1])
end
return 1
