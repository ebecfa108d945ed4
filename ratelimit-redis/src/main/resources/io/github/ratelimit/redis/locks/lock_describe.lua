-- Reads what operators see of a held lock, without changing anything.
-- KEYS[1] the lock, KEYS[2] its description (same hash slot)
-- Returns {} when the lock is not held (or was taken by a version that writes no description), else
-- {key, name, holder, held ms, lease left ms, fencing token}, times on Redis's clock.
local owner = redis.call('GET', KEYS[1])
if not owner then
    return {}
end
local d = redis.call('HMGET', KEYS[2], 'o', 'k', 'n', 'h', 's', 't')
if d[1] ~= owner then
    return {}
end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
return {d[2], d[3], d[4], now - tonumber(d[5]), redis.call('PTTL', KEYS[1]), d[6]}
