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
--         "\1<requestId>" -> tombstone of a request whose holder left: released, expired and reclaimed, or
--         replaced; when, epoch ms); "\2<requestId>" -> the request's booking ended (cancelled or
--         expired; when, epoch ms): the request never takes a seat again, it answers 'R'); "\3<student>" ->
--         a booking of the student here ended (when, epoch ms): on a full slot the student is answered 'R',
--         never 'F' (see release.lua))
-- ARGV[1] student   ARGV[2] request id   ARGV[3] ttl (ms)   ARGV[4] most expired holders reclaimed per call
--
-- Replies 'H' (held), 'F' (full), 'R' (full, but the request id has had a holder here: a retry, for the
-- ledger to answer), 'M' (no state, or only part of it), 'C' (closed), 'N' followed by the opening
-- instant (epoch microseconds) while booking has not opened (with one second to spare for the clocks of
-- gate and database), or 'D' followed by the request id the student already holds a seat under.
--
-- Every holder that leaves keeps its request id as a tombstone: a hold that reclaims expired holders
-- writes theirs, one that replaces the student's expired record under another request writes that one
-- (in the same HSET). The tombstones grow only with holds that got a seat (each one a ledger call), and
-- go with the slot's keys.
--
-- A student is a member of the holders key exactly when the meta hash has their record (every script
-- writes and removes the two together). The members (live or expired, plus the marker) bound the live
-- holders from above, so a slot with fewer members than seats plus one has a free seat: ZADD NX takes
-- it, and answers 0 only for a student who is a member already. Only then, or on a slot with as many
-- members as that, are the student's record and the request's tombstone read (one HMGET: a live record
-- answers 'D') and, on the latter, are the live holders counted exactly (ZCOUNT); a full slot with
-- expired members also reclaims a bounded batch of them.
--
-- Success path: TIME, HGET, ZCARD, HEXISTS (ended), ZADD, HSET. Full slot: TIME, HGET, ZCARD, HMGET, ZCOUNT; a later hold
-- of the same call on a slot it found full: HMGET (the student's record, the tombstone) alone. Keys' expiry
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

-- the request id of a record "expiry|takenAt|requestId", and whether it is live
local function requestOf(record)
  local bar = string.find(record, '|', 1, true)
  return string.sub(record, string.find(record, '|', bar + 1, true) + 1), tonumber(string.sub(record, 1, bar - 1)) > now
end

-- the request id of the student's record (nil: none), whether it is live, and whether the ledger answers
-- a hold of the request on a full slot: the request has a tombstone here, or a booking of the student here
-- ended (the student may hold a newer booking whose seat is on its way from the ended one's: see
-- release.lua)
local function lookup(meta, student, request)
  local got = redis.call('HMGET', meta, student, '\1' .. request, '\3' .. student)
  local ask = got[2] or got[3]
  if got[1] then
    local under, live = requestOf(got[1])
    return under, live, ask
  end
  return nil, false, ask
end

-- the answer to a hold that finds no seat: a request that had a holder here is a retry
local function fullFor(request, under, tomb)
  if tomb or under == request then
    return 'R'
  end
  return 'F'
end

-- the meta keys of the slots an earlier hold of this call found full: they stay full for the rest of the
-- call, whose holds take seats and never free one, so a later hold there only looks for its own record
local full = {}

-- one hold: its keys and arguments as KEYS[1..2] and ARGV[1..4] above
local function hold(holders, meta, student, request, ttl, reclaim)
  if full[meta] then
    local under, live, tomb = lookup(meta, student, request)
    if live then
      return 'D' .. under
    end
    return fullFor(request, under, tomb)
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

  -- a request whose booking ended (release.lua 'e') never takes a seat again: the ledger answers it
  if redis.call('HEXISTS', meta, '\2' .. request) == 1 then
    local under, live = lookup(meta, student, request)
    if live then
      return 'D' .. under
    end
    return 'R'
  end
  local expiry
  local added = 0
  if members <= capacity then
    expiry = expiryText(ttl)
    added = redis.call('ZADD', holders, 'NX', expiry, student)
  end
  local replaced
  if added == 0 then
    local under, live, tomb = lookup(meta, student, request)
    if live then
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
            local records = redis.call('HMGET', meta, unpack(expired, i, last))
            local tombs = {}
            for k = 1, #records do
              if records[k] then
                tombs[#tombs + 1] = '\1' .. requestOf(records[k])
                tombs[#tombs + 1] = nowText
              end
            end
            redis.call('ZREM', holders, unpack(expired, i, last))
            redis.call('HDEL', meta, unpack(expired, i, last))
            if #tombs > 0 then
              redis.call('HSET', meta, unpack(tombs))
            end
          end
        end
        full[meta] = true
        return fullFor(request, under, tomb)
      end
    end
    expiry = expiry or expiryText(ttl)
    redis.call('ZADD', holders, expiry, student)
    if under and under ~= request then
      replaced = under
    end
  end
  if replaced then
    -- the student's expired record under another request leaves: its tombstone in the same write
    redis.call('HSET', meta, student, expiry .. '|' .. nowText .. '|' .. request, '\1' .. replaced, nowText)
    return 'H'
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
