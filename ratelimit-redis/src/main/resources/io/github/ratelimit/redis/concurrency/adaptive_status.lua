-- Reads where an adaptive concurrency limit stands, taking nothing (see adaptive_acquire.lua for the fields).
-- KEYS[1] the state, KEYS[2] the steering (one hash slot)
-- Returns {limit, no-load µs, instances, last windows, pin, min, max}, each a string, '' where there is none
local state = redis.call('HMGET', KEYS[1], 'limit', 'n', 'k', 'h')
local steer = redis.call('HMGET', KEYS[2], 'pin', 'min', 'max')
local reply = {}
for i = 1, 4 do
    reply[i] = state[i] or ''
end
for i = 1, 3 do
    reply[4 + i] = steer[i] or ''
end
return reply
