-- reconcile: converges the slot's state to the ledger's truth in one atomic step, on the server's clock.
--
-- KEYS[1] holders   KEYS[2] meta   (layout in hold.lua)
-- ARGV[1] capacity, or "capacity|opensAt" (epoch microseconds)   ARGV[2] in-flight grace (ms)   ARGV[3] keepUntil (epoch ms, '' = never)
-- ARGV[4] the score that means "pinned"   ARGV[5] how long ago the truth was read, ms ('' = unknown)
-- ARGV[6..] per truth holder, four values: student, request id, takenAt (epoch ms), expiresAt ('' = pinned)
--
-- Replies {added, removed, capacityFixed (0 or 1)}. A closed slot is left alone: {0, 0, 0}.
local current = redis.call('HGET', KEYS[2], '')
if current == 'closed' then
  return {0, 0, 0}
end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local pinned = tonumber(ARGV[4])
local fixed = 0

local function parse(record)
  if not record then
    return nil
  end
  local first = string.find(record, '|', 1, true)
  local second = string.find(record, '|', first + 1, true)
  return tonumber(string.sub(record, 1, first - 1)), tonumber(string.sub(record, first + 1, second - 1)),
      string.sub(record, second + 1)
end

if not current or redis.call('EXISTS', KEYS[1]) == 0 then
  -- missing, or partly lost: rebuild from the truth, keeping the tombstones a surviving meta hash has
  if current then
    local fields = redis.call('HKEYS', KEYS[2])
    for i = 1, #fields do
      if string.byte(fields[i], 1) ~= 1 then
        redis.call('HDEL', KEYS[2], fields[i])
      end
    end
  end
  redis.call('DEL', KEYS[1])
  redis.call('ZADD', KEYS[1], '+inf', '')
  current = nil
end
if current ~= ARGV[1] then
  redis.call('HSET', KEYS[2], '', ARGV[1])
  fixed = 1
end

-- expired holders hold nothing: drop them first
local expired = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now)
for i = 1, #expired do
  redis.call('ZREM', KEYS[1], expired[i])
  redis.call('HDEL', KEYS[2], expired[i])
end

local truth = {}
for i = 6, #ARGV, 4 do
  truth[ARGV[i]] = ARGV[i + 1]
end

-- holders the truth does not name (student and request): only those taken before the grace
local removed = 0
local cutoff = now - tonumber(ARGV[2])
local members = redis.call('ZRANGE', KEYS[1], 0, -1)
for i = 1, #members do
  local student = members[i]
  if student ~= '' then
    local _, takenAt, request = parse(redis.call('HGET', KEYS[2], student))
    if truth[student] ~= request and (takenAt == nil or takenAt < cutoff) then
      redis.call('ZREM', KEYS[1], student)
      redis.call('HDEL', KEYS[2], student)
      removed = removed + 1
    end
  end
end

-- the instant the truth was read: a request released before it is in the truth only if the ledger
-- still holds its booking; one released after it may be stale there (unknown age: all are)
local readAt = ARGV[5] ~= '' and now - tonumber(ARGV[5]) or nil
local added = 0
for i = 6, #ARGV, 4 do
  local student, request = ARGV[i], ARGV[i + 1]
  local expiry = ARGV[i + 3] == '' and pinned or tonumber(ARGV[i + 3])
  local has, takenAt, held = parse(redis.call('HGET', KEYS[2], student))
  -- a released request is not added back when the truth may predate the release, unless it holds again
  local released = tonumber(redis.call('HGET', KEYS[2], '\1' .. request))
  if held == request or not released or (readAt and released < readAt) then
    if not has then
      if expiry > now then
        local score = string.format('%.0f', expiry)
        redis.call('ZADD', KEYS[1], score, student)
        redis.call('HSET', KEYS[2], student, score .. '|' .. ARGV[i + 2] .. '|' .. request)
        added = added + 1
      end
    elseif held == request and has < pinned and expiry > has then
      -- pin a confirmed one, extend an expiry; never shorten or un-pin
      local score = string.format('%.0f', expiry)
      redis.call('ZADD', KEYS[1], score, student)
      redis.call('HSET', KEYS[2], student, score .. '|' .. string.format('%.0f', takenAt) .. '|' .. request)
    end
    -- a holder of the student under another request is young (older ones went above): left alone
  end
end

for i = 1, 2 do
  if ARGV[3] == '' then
    redis.call('PERSIST', KEYS[i])
  else
    redis.call('PEXPIREAT', KEYS[i], ARGV[3])
  end
end
return {added, removed, fixed}
