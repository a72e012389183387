-- confirm: pins a student's hold (the booking is confirmed), so it never expires.
-- Does nothing when the student holds nothing.
--
-- KEYS[1] capacity   KEYS[2] holders   KEYS[3] meta
-- ARGV[1] student   ARGV[2] the score that means "pinned"
if redis.call('ZSCORE', KEYS[2], ARGV[1]) then
  redis.call('ZADD', KEYS[2], 'XX', ARGV[2], ARGV[1])
  return 1
end
return 0
