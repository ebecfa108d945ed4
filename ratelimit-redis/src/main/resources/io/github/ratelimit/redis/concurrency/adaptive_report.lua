-- Adds one instance's report to the fleet's current window of an adaptive limit, on Redis's clock. The window's fields
-- are prefixed with its index (floor(now / window ms)): c completed, s their latency sum (µs), l the lowest latency,
-- d dropped, r refused, p the peak in flight. Windows two behind are deleted; the hash lives three windows.
-- KEYS[1] the limit's windows (a hash)
-- ARGV window ms, completed, latency sum µs, lowest latency µs, dropped, refused, peak in flight
-- Returns {the window's index}
if redis.replicate_commands then
    redis.replicate_commands()
end
local window_ms = tonumber(ARGV[1])
local t = redis.call('TIME')
local now_ms = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local index = math.floor(now_ms / window_ms)
local at = string.format('%.0f', index) .. ':'
local completed = tonumber(ARGV[2])
if completed > 0 then
    redis.call('HINCRBY', KEYS[1], at .. 'c', completed)
    redis.call('HINCRBY', KEYS[1], at .. 's', ARGV[3])
    local lowest = tonumber(redis.call('HGET', KEYS[1], at .. 'l') or '')
    if not lowest or tonumber(ARGV[4]) < lowest then
        redis.call('HSET', KEYS[1], at .. 'l', ARGV[4])
    end
end
redis.call('HINCRBY', KEYS[1], at .. 'd', ARGV[5])
redis.call('HINCRBY', KEYS[1], at .. 'r', ARGV[6])
local peak = tonumber(redis.call('HGET', KEYS[1], at .. 'p') or '0')
if tonumber(ARGV[7]) > peak then
    redis.call('HSET', KEYS[1], at .. 'p', ARGV[7])
end
local old = string.format('%.0f', index - 2) .. ':'
redis.call('HDEL', KEYS[1], old .. 'c', old .. 's', old .. 'l', old .. 'd', old .. 'r', old .. 'p')
redis.call('PEXPIRE', KEYS[1], window_ms * 3)
return {index}
