-- transfer: the ledger granted request `to` a live booking of the student while the student's holder was
-- put there by `from`, an earlier request whose booking is no longer live. In one step the holder becomes
-- `to`'s (taken now, expiring now + ttl), so the student never holds nothing in between and a late release
-- of `from` finds nothing of its own. `from` gets its tombstone in any case (as release.lua writes it,
-- also on a slot without state). With no live holder of the student, takes a seat for `to` as hold.lua
-- would, ignoring the opening (the ledger decided); an expired record it replaces leaves its tombstone.
--
-- KEYS[1] holders   KEYS[2] meta   (layout in hold.lua)
-- ARGV[1] student   ARGV[2] from (request id)   ARGV[3] to (request id)   ARGV[4] ttl (ms)
--
-- A `to` whose booking ended (release.lua with 'e' came first) gets no seat, and the student's holder is
-- left as it is: the reply is 'R'.
--
-- Replies 'H' (the student's holder is `to`'s), 'R' (`to` ended), 'D' followed by the request id of a live holder of a third
-- request (left alone), 'F' (no live holder and no seat), 'M' (no state, or only part of it), 'C' (closed).
local student, from, to = ARGV[1], ARGV[2], ARGV[3]
local t = redis.call('TIME')
local nowText = t[1] .. string.sub('00000' .. t[2], -6, -4)
local now = tonumber(nowText)
local got = redis.call('HMGET', KEYS[2], '', student, '\2' .. to)
local capacity = got[1]
if capacity == 'closed' then
  return 'C'
end
if not capacity or redis.call('EXISTS', KEYS[1]) == 0 then
  redis.call('HSET', KEYS[2], '\1' .. from, nowText)
  if redis.call('PTTL', KEYS[2]) < 0 then
    redis.call('PEXPIRE', KEYS[2], 3600000)
  end
  return 'M'
end
local under, live
if got[2] then
  local first = string.find(got[2], '|', 1, true)
  under = string.sub(got[2], string.find(got[2], '|', first + 1, true) + 1)
  live = tonumber(string.sub(got[2], 1, first - 1)) > now
end
if got[3] then
  -- the booking of `to` ended (its release came first): no seat for it; a holder under `from` is left to
  -- its own request (which may still be on its way to the ledger)
  redis.call('HSET', KEYS[2], '\1' .. from, nowText)
  return 'R'
end
if live and under == to then
  redis.call('HSET', KEYS[2], '\1' .. from, nowText)
  return 'H'
end
if live and under ~= from then
  redis.call('HSET', KEYS[2], '\1' .. from, nowText)
  return 'D' .. under
end
if not live then
  local bar = string.find(capacity, '|', 1, true)
  if bar then
    capacity = string.sub(capacity, 1, bar - 1)
  end
  -- live holders plus the marker
  if redis.call('ZCOUNT', KEYS[1], '(' .. nowText, '+inf') > tonumber(capacity) then
    -- the ledger's live booking has no seat here until a reconcile: the ledger answers the student
    redis.call('HSET', KEYS[2], '\1' .. from, nowText, '\3' .. student, nowText)
    return 'F'
  end
end
local expiry = now + tonumber(ARGV[4])
expiry = expiry < 1e14 and (expiry .. '') or string.format('%.0f', expiry)
redis.call('ZADD', KEYS[1], expiry, student)
if under and under ~= from and under ~= to then
  redis.call('HSET', KEYS[2], student, expiry .. '|' .. nowText .. '|' .. to, '\1' .. from, nowText,
    '\1' .. under, nowText)
else
  redis.call('HSET', KEYS[2], student, expiry .. '|' .. nowText .. '|' .. to, '\1' .. from, nowText)
end
return 'H'
