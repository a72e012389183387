-- initialize: creates the slot's capacity unless it exists. Existing state is never overwritten,
-- so a slot at 0 remaining stays at 0.
--
-- KEYS[1] capacity   KEYS[2] holders   KEYS[3] meta
-- ARGV[1] capacity   ARGV[2] keepUntil (epoch ms): the slot's keys expire then ('' = never)
if redis.call('SET', KEYS[1], ARGV[1], 'NX') then
  if ARGV[2] ~= '' then
    for i = 1, 3 do
      redis.call('PEXPIREAT', KEYS[i], ARGV[2])
    end
  end
  return 1
end
return 0
