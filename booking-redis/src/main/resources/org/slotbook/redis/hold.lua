-- tryHold: takes a seat of one slot for one student, in one atomic step, on the server's clock.
-- One call may carry several holds (a client's pipeline of concurrent holds on a standalone server):
-- each hold's two keys and four arguments follow the previous hold's, and the reply is then a list
-- of each hold's reply, in order. The holds are decided one after the other on one reading of the
-- clock, exactly as that many calls of one hold would be; a hold that fails (a key of the wrong type)
-- answers its error in its place and the others go on. With one hold, the reply is that hold's.
--
-- KEYS[1] holders (zset: student -> hold expiry in epoch ms, pinned = 9e15; plus the member '' at
--         +inf, which marks the key as present)
-- KEYS[2] meta (hash: '' -> capacity, or "capacity|opensAt" (epoch microseconds) for a slot whose booking
--         opens later, or 'closed'; student -> "expiry|takenAt|requestId";
--         "\1<requestId>" -> tombstone of a released request: when it was released, epoch ms)
-- ARGV[1] student   ARGV[2] request id   ARGV[3] ttl (ms)   ARGV[4] most expired holders reclaimed per call
--
-- Replies 'H' (held), 'F' (full), 'M' (no state, or only part of it), 'C' (closed), 'N' followed by the
-- opening instant (epoch microseconds) while booking has not opened (with one second to spare for the
-- clocks of gate and database), or 'D' followed by the request id the student already holds a seat under.
--
-- A student is a member of the holders key exactly when the meta hash has their record (every script
-- writes and removes the two together). The members (live or expired, plus the marker) bound the live
-- holders from above, so a slot with fewer members than seats plus one has a free seat: ZADD NX takes
-- it, and answers 0 only for a student who is a member already. Only then, or on a slot with as many
-- members as that, is the student's record read (a live one answers 'D') and, on the latter, are the
-- live holders counted exactly (ZCOUNT); a full slot with expired members also reclaims a bounded
-- batch of them.
--
-- Success path: TIME, HGET, ZCARD, ZADD, HSET. Full slot: TIME, HGET, ZCARD, HGET, ZCOUNT; a later hold
-- of the same call on a slot it found full: HGET (the student's record) alone. Keys' expiry
-- is set where they are created (init, reconcile, close): ZADD and HSET on an existing key keep it.
-- Numbers are turned into text at most once per hold (it costs about as much as a command): the
-- clock's milliseconds are cut from the text TIME answers.
if #KEYS % 2 == 1 or #ARGV ~= 2 * #KEYS or #KEYS == 0 then
  return redis.error_reply('ERR hold.lua takes 2 keys and 4 arguments per hold, got ' .. #KEYS .. ' keys and '
    .. #ARGV .. ' arguments')
end
local t = redis.call('TIME')
local nowText = t[1] .. string.sub('00000' .. t[2], -6, -4)
local now = tonumber(nowText)

-- a hold's expiry as text; a Lua number prints as an integer below 1e14 (epoch ms of the year 5138)
local function expiryText(ttl)
  local expiry = now + tonumber(ttl)
  if expiry < 1e14 then
    return expiry .. ''
  end
  return string.format('%.0f', expiry)
end

-- the request id under which a live record of the student holds a seat, or nil
local function heldUnder(meta, student)
  local record = redis.call('HGET', meta, student)
  if record then
    local bar = string.find(record, '|', 1, true)
    if tonumber(string.sub(record, 1, bar - 1)) > now then
      return string.sub(record, string.find(record, '|', bar + 1, true) + 1)
    end
  end
  return nil
end

-- the meta keys of the slots an earlier hold of this call found full: they stay full for the rest of the
-- call, whose holds take seats and never free one, so a later hold there only looks for its own record
local full = {}

-- one hold: its keys and arguments as KEYS[1..2] and ARGV[1..4] above
local function hold(holders, meta, student, request, ttl, reclaim)
  if full[meta] then
    local under = heldUnder(meta, student)
    if under then
      return 'D' .. under
    end
    return 'F'
  end
  local capacity = redis.call('HGET', meta, '')
  if not capacity then
    return 'M'
  end
  if capacity == 'closed' then
    return 'C'
  end
  -- members, the '' marker included; 0 means the holders key is gone: partial state
  local members = redis.call('ZCARD', holders)
  if members == 0 then
    return 'M'
  end
  local bar = string.find(capacity, '|', 1, true)
  if bar then
    local opens = string.sub(capacity, bar + 1)
    if (now + 1000) * 1000 < tonumber(opens) then
      return 'N' .. opens
    end
    capacity = string.sub(capacity, 1, bar - 1)
  end
  capacity = tonumber(capacity)

  local expiry
  local added = 0
  if members <= capacity then
    expiry = expiryText(ttl)
    added = redis.call('ZADD', holders, 'NX', expiry, student)
  end
  if added == 0 then
    local under = heldUnder(meta, student)
    if under then
      return 'D' .. under
    end
    if members > capacity then
      -- live holders plus the marker
      local live = redis.call('ZCOUNT', holders, '(' .. nowText, '+inf')
      if live > capacity then
        -- Abandoned holds are reclaimed here, a bounded batch per call, with no sweeper. Counting never
        -- needed it (ZCOUNT sees live holders only); this keeps a busy full slot's keys small.
        if members > live then
          local expired = redis.call('ZRANGEBYSCORE', holders, '-inf', nowText, 'LIMIT', 0, reclaim)
          for i = 1, #expired, 100 do
            local last = math.min(i + 99, #expired)
            redis.call('ZREM', holders, unpack(expired, i, last))
            redis.call('HDEL', meta, unpack(expired, i, last))
          end
        end
        full[meta] = true
        return 'F'
      end
    end
    expiry = expiry or expiryText(ttl)
    redis.call('ZADD', holders, expiry, student)
  end
  redis.call('HSET', meta, student, expiry .. '|' .. nowText .. '|' .. request)
  return 'H'
end

if #KEYS == 2 then
  return hold(KEYS[1], KEYS[2], ARGV[1], ARGV[2], ARGV[3], ARGV[4])
end
local replies = {}
for i = 1, #KEYS / 2 do
  local ok, reply = pcall(hold, KEYS[2 * i - 1], KEYS[2 * i], ARGV[4 * i - 3], ARGV[4 * i - 2], ARGV[4 * i - 1],
    ARGV[4 * i])
  if ok then
    replies[i] = reply
  elseif type(reply) == 'table' and reply.err then
    replies[i] = reply
  else
    replies[i] = {err = tostring(reply)}
  end
end
return replies
