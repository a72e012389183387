-- clear: drops all of one slot's state (the session was called off).
--
-- KEYS[1] capacity   KEYS[2] holders   KEYS[3] meta
return redis.call('DEL', KEYS[1], KEYS[2], KEYS[3])
