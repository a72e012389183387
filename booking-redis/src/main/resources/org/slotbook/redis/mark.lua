-- mark: the server's clock (epoch ms) on the node that owns the slot's keys, read before a ledger read
-- that a reconcile will bring. Read only.
--
-- KEYS[1] holders   KEYS[2] meta   (layout in hold.lua)
local t = redis.call('TIME')
return t[1] .. string.sub('00000' .. t[2], -6, -4)
