-- tryHold: takes a seat of one slot for one student, in one atomic step, on the server's clock.
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
-- Success path: TIME, HMGET, ZCOUNT, ZADD, HSET. Keys' expiry is set where they are created
-- (init, reconcile, close): ZADD and HSET on an existing key keep it.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local got = redis.call('HMGET', KEYS[2], '', ARGV[1])
local capacity = got[1]
if not capacity then
  return 'M'
end
if capacity == 'closed' then
  return 'C'
end
-- live holders plus the '' marker; 0 means the holders key is gone: partial state
local live = redis.call('ZCOUNT', KEYS[1], '(' .. now, '+inf')
if live == 0 then
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
local record = got[2]
if record then
  local bar = string.find(record, '|', 1, true)
  if tonumber(string.sub(record, 1, bar - 1)) > now then
    return 'D' .. string.sub(record, string.find(record, '|', bar + 1, true) + 1)
  end
end
if live - 1 >= tonumber(capacity) then
  -- Abandoned holds are reclaimed here, a bounded batch per call, with no sweeper. Counting never
  -- needed it (ZCOUNT sees live holders only); this keeps a busy full slot's keys small.
  local expired = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, tonumber(ARGV[4]))
  for i = 1, #expired, 100 do
    local last = math.min(i + 99, #expired)
    redis.call('ZREM', KEYS[1], unpack(expired, i, last))
    redis.call('HDEL', KEYS[2], unpack(expired, i, last))
  end
  return 'F'
end
local expiry = string.format('%.0f', now + tonumber(ARGV[3]))
redis.call('ZADD', KEYS[1], expiry, ARGV[1])
redis.call('HSET', KEYS[2], ARGV[1], expiry .. '|' .. string.format('%.0f', now) .. '|' .. ARGV[2])
return 'H'
