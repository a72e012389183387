-- release: removes one student's holder if the given request put it there, and leaves a tombstone of
-- the request id (kept as long as the slot's keys) so reconcile never adds it back. Replies 1 only for
-- the call that removed the holder. A closed slot is left alone. A slot without state (or with partial
-- state) gets the tombstone alone, in a meta hash without a capacity (which every script reads as
-- missing state) that expires in an hour unless a rebuild adopts it: a rebuild from a ledger read taken
-- before this release then never adds the holder back.
--
-- A release that removes the student's holder marks the student, "\3<student>" -> when: another delivery
-- of the request, or a newer request of the student, may be granted by the ledger while this release is
-- on its way, its seat taken again (a re-count, or transfer.lua) only after this release took it away;
-- until then the student holds no seat here while holding a live booking, so on a full slot hold.lua lets
-- the ledger answer the student ('R': it says AlreadyBooked, or Full) instead of answering Full itself.
--
-- With ARGV[3] = 'e' (the request's booking ended: cancelled or expired) the request is also recorded as
-- ended, "\2<requestId>" -> when, for good: hold.lua and transfer.lua never take a seat for it again and
-- reconcile never adds it back. And the student is marked as above, holder or not.
--
-- With ARGV[3] = 'w' (withdraw: the request was refused as bad input) the holder is removed the same way
-- but nothing is recorded: no tombstone, and a slot without state is not touched.
--
-- KEYS[1] holders   KEYS[2] meta   (layout in hold.lua)
-- ARGV[1] student   ARGV[2] request id   ARGV[3] 'w' to withdraw, 'e' for an ended booking (optional)
local withdraw = ARGV[3] == 'w'
local ended = ARGV[3] == 'e'
local got = redis.call('HMGET', KEYS[2], '', ARGV[1])
if got[1] == 'closed' then
  return 0
end
local stamp
if not withdraw then
  local t = redis.call('TIME')
  stamp = string.format('%.0f', tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000))
end
if not got[1] then
  if withdraw then
    return 0
  end
  if ended then
    redis.call('HSET', KEYS[2], '\1' .. ARGV[2], stamp, '\2' .. ARGV[2], stamp, '\3' .. ARGV[1], stamp)
  else
    redis.call('HSET', KEYS[2], '\1' .. ARGV[2], stamp)
  end
  if redis.call('PTTL', KEYS[2]) < 0 then
    redis.call('PEXPIRE', KEYS[2], 3600000)
  end
  return 0
end
if ended then
  redis.call('HSET', KEYS[2], '\1' .. ARGV[2], stamp, '\2' .. ARGV[2], stamp, '\3' .. ARGV[1], stamp)
elseif not withdraw then
  redis.call('HSET', KEYS[2], '\1' .. ARGV[2], stamp)
end
local record = got[2]
if not record or redis.call('EXISTS', KEYS[1]) == 0 then
  return 0
end
local bar = string.find(record, '|', string.find(record, '|', 1, true) + 1, true)
if string.sub(record, bar + 1) ~= ARGV[2] then
  return 0
end
if withdraw then
  redis.call('HDEL', KEYS[2], ARGV[1])
else
  -- another delivery or request of the student may be granted by the ledger meanwhile, its seat taken
  -- again only after this: the student is marked (see 'e' above)
  redis.call('HDEL', KEYS[2], ARGV[1])
  redis.call('HSET', KEYS[2], '\3' .. ARGV[1], stamp)
end
return redis.call('ZREM', KEYS[1], ARGV[1])
