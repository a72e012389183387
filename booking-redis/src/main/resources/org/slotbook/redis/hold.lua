-- tryHold: takes a seat of one slot for one student, in one atomic step.
--
-- KEYS[1] capacity (string)       KEYS[2] holders (zset: student -> hold expiry, epoch ms)
-- KEYS[3] meta (hash: student -> "takenAt|requestId")
-- ARGV[1] student   ARGV[2] request id   ARGV[3] now (epoch ms)   ARGV[4] expiresAt (epoch ms)
-- ARGV[5] how many expired holders one call may reclaim at most
--
-- Replies 'H' (held), 'F' (full), 'M' (no state for this slot), or 'D' followed by the request id
-- the student already holds a seat under.
local capacity = redis.call('GET', KEYS[1])
if not capacity then
  return 'M'
end
local now = ARGV[3]
local student = ARGV[1]

-- Abandoned holds give their seat back here: no sweeper needed. The batch bounds the work of one
-- call; the count below ignores expired holders anyway, so a bounded reclaim never overstates.
local expired = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now, 'LIMIT', 0, tonumber(ARGV[5]))
for i = 1, #expired do
  redis.call('ZREM', KEYS[2], expired[i])
  redis.call('HDEL', KEYS[3], expired[i])
end

local score = redis.call('ZSCORE', KEYS[2], student)
if score then
  if tonumber(score) > tonumber(now) then
    local meta = redis.call('HGET', KEYS[3], student)
    if meta then
      local bar = string.find(meta, '|', 1, true)
      if bar then
        return 'D' .. string.sub(meta, bar + 1)
      end
    end
    return 'D' .. ARGV[2]
  end
  -- expired, but beyond this call's reclaim batch
  redis.call('ZREM', KEYS[2], student)
  redis.call('HDEL', KEYS[3], student)
end

if redis.call('ZCOUNT', KEYS[2], '(' .. now, '+inf') >= tonumber(capacity) then
  return 'F'
end

redis.call('ZADD', KEYS[2], ARGV[4], student)
redis.call('HSET', KEYS[3], student, now .. '|' .. ARGV[2])
-- the slot's keys live exactly as long as its capacity key (set to keepUntil by init/reconcile)
local ttl = redis.call('PTTL', KEYS[1])
if ttl > 0 then
  redis.call('PEXPIRE', KEYS[2], ttl)
  redis.call('PEXPIRE', KEYS[3], ttl)
end
return 'H'
