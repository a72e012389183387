-- reconcile: converges the slot's state to the ledger's truth in one atomic step, on the server's clock.
--
-- KEYS[1] holders   KEYS[2] meta   (layout in hold.lua)
-- ARGV[1] capacity, or "capacity|opensAt" (epoch microseconds)   ARGV[2] in-flight grace (ms)   ARGV[3] keepUntil (epoch ms, '' = never)
-- ARGV[4] the score that means "pinned"   ARGV[5] when the truth was read: '@' followed by a mark of this
-- server's clock (epoch ms, see mark.lua) taken before the read; or how long ago it was read, ms; or ''
-- (unknown)
-- ARGV[6..] per truth holder, four values: student, request id, takenAt (epoch ms), expiresAt ('' = pinned)
--
-- A holder that leaves here (expired, or not named by the truth) keeps its request id as a tombstone,
-- as it does everywhere, unless the truth names that request: a retry of it is then a replay.
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
      local first = string.byte(fields[i], 1)
      if first ~= 1 and first ~= 2 and first ~= 3 then
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

local truth = {}
local named = {}
for i = 6, #ARGV, 4 do
  truth[ARGV[i]] = ARGV[i + 1]
  named[ARGV[i + 1]] = true
end
local nowText = string.format('%.0f', now)

-- a holder leaving: its tombstone, unless the truth names its request
local function leaves(student, request)
  redis.call('ZREM', KEYS[1], student)
  redis.call('HDEL', KEYS[2], student)
  if request and not named[request] then
    redis.call('HSET', KEYS[2], '\1' .. request, nowText)
  end
end

-- the instant the truth was read: a request released before it is in the truth only if the ledger
-- still holds its booking; one released after it may be stale there (unknown age: all are). A mark of
-- this server's clock taken before the read dates it exactly; an age measured by the caller does not
-- count the delays on the way here.
local readAt
local marked = string.sub(ARGV[5], 1, 1) == '@'
if marked then
  readAt = tonumber(string.sub(ARGV[5], 2))
elseif ARGV[5] ~= '' then
  readAt = now - tonumber(ARGV[5])
end

-- expired holders hold nothing: drop them first
local expired = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now)
for i = 1, #expired do
  local _, _, request = parse(redis.call('HGET', KEYS[2], expired[i]))
  leaves(expired[i], request)
end

-- holders the truth does not name (student and request): only those taken before the grace (counted
-- back from the mark: a holder taken after it is one the read could not know)
local removed = 0
local cutoff = (marked and math.min(now, readAt) or now) - tonumber(ARGV[2])
local members = redis.call('ZRANGE', KEYS[1], 0, -1)
for i = 1, #members do
  local student = members[i]
  if student ~= '' then
    local _, takenAt, request = parse(redis.call('HGET', KEYS[2], student))
    if truth[student] ~= request and (takenAt == nil or takenAt < cutoff) then
      leaves(student, request)
      removed = removed + 1
    end
  end
end
local added = 0
for i = 6, #ARGV, 4 do
  local student, request = ARGV[i], ARGV[i + 1]
  local expiry = ARGV[i + 3] == '' and pinned or tonumber(ARGV[i + 3])
  local has, takenAt, held = parse(redis.call('HGET', KEYS[2], student))
  -- a released request is not added back when the truth may predate the release, unless it holds again
  local marks = redis.call('HMGET', KEYS[2], '\1' .. request, '\2' .. request)
  local released = tonumber(marks[1])
  -- an ended booking's request is never added back: the truth was read before it ended
  if not marks[2] and (held == request or not released or (readAt and released < readAt)) then
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
