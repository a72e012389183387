-- reconcile: converges the slot's state to the ledger's truth in one atomic step.
--
-- KEYS[1] capacity   KEYS[2] holders   KEYS[3] meta
-- ARGV[1] capacity   ARGV[2] now (epoch ms)   ARGV[3] removeTakenBefore (epoch ms)
-- ARGV[4] keepUntil (epoch ms, '' = never)   ARGV[5] the score that means "pinned"
-- ARGV[6..] per truth holder, four values: student, request id, takenAt, expiresAt ('' = pinned)
--
-- Replies {added, removed, capacityFixed (0 or 1)}.
local fixed = 0
if redis.call('GET', KEYS[1]) ~= ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[1])
  fixed = 1
end
local now = tonumber(ARGV[2])

-- expired holders hold nothing: drop them first
local expired = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', ARGV[2])
for i = 1, #expired do
  redis.call('ZREM', KEYS[2], expired[i])
  redis.call('HDEL', KEYS[3], expired[i])
end

local truth = {}
local added = 0
for i = 6, #ARGV, 4 do
  local student = ARGV[i]
  local score = ARGV[i + 3]
  if score == '' then
    score = ARGV[5]
  end
  if tonumber(score) > now then
    truth[student] = true
    if not redis.call('ZSCORE', KEYS[2], student) then
      added = added + 1
    end
    -- the truth's expiry wins, and a confirmed booking pins its holder
    redis.call('ZADD', KEYS[2], score, student)
    redis.call('HSET', KEYS[3], student, ARGV[i + 2] .. '|' .. ARGV[i + 1])
  end
end

-- holders the truth does not name: only those old enough not to be in flight
local removed = 0
local cutoff = tonumber(ARGV[3])
local members = redis.call('ZRANGE', KEYS[2], 0, -1)
for i = 1, #members do
  local student = members[i]
  if not truth[student] then
    local takenAt = nil
    local meta = redis.call('HGET', KEYS[3], student)
    if meta then
      local bar = string.find(meta, '|', 1, true)
      if bar then
        takenAt = tonumber(string.sub(meta, 1, bar - 1))
      end
    end
    if takenAt == nil or takenAt < cutoff then
      redis.call('ZREM', KEYS[2], student)
      redis.call('HDEL', KEYS[3], student)
      removed = removed + 1
    end
  end
end

for i = 1, 3 do
  if ARGV[4] == '' then
    redis.call('PERSIST', KEYS[i])
  else
    redis.call('PEXPIREAT', KEYS[i], ARGV[4])
  end
end
return {added, removed, fixed}
