-- Gives back a slot of an adaptive concurrency limit (removes exactly its owner) and adds the call's outcome to the
-- fleet's current window on Redis's clock: a completed call is a latency sample (c completed, s their latency sum in
-- µs, l the lowest, o those slower than tolerated), a dropped one (a timeout, an error) is only counted (d). Windows three behind are deleted (a
-- step reads the two before the current one).
-- KEYS[1] the holders, KEYS[2] the windows (same hash slot; see adaptive_acquire.lua)
-- ARGV owner, window ms, outcome ('c' completed, 'o' completed slower than tolerated, 'd' dropped), latency µs
-- Returns {1} if the owner held a slot, {0} if its lease had ended (the outcome is counted either way)
if redis.replicate_commands then
    redis.replicate_commands()
end
local window_ms = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local index = math.floor(now / window_ms)
local at = string.format('%.0f', index) .. ':'
local held = redis.call('ZREM', KEYS[1], ARGV[1])
if ARGV[3] == 'c' or ARGV[3] == 'o' then
    redis.call('HINCRBY', KEYS[2], at .. 'c', 1)
    if ARGV[3] == 'o' then
        redis.call('HINCRBY', KEYS[2], at .. 'o', 1)
    end
    redis.call('HINCRBY', KEYS[2], at .. 's', ARGV[4])
    local lowest = tonumber(redis.call('HGET', KEYS[2], at .. 'l') or '')
    if not lowest or tonumber(ARGV[4]) < lowest then
        redis.call('HSET', KEYS[2], at .. 'l', ARGV[4])
    end
else
    redis.call('HINCRBY', KEYS[2], at .. 'd', 1)
end
local old = string.format('%.0f', index - 3) .. ':'
redis.call('HDEL', KEYS[2], old .. 'c', old .. 's', old .. 'l', old .. 'o', old .. 'd', old .. 'r', old .. 'p')
redis.call('PEXPIRE', KEYS[2], window_ms * 4)
return {held}
