-- Applies the adaptive limit's step (core.internal.AdaptiveLimit, line by line) once per window for the whole fleet:
-- the first call after a window closed reads what every instance reported for it and moves the limit; every other
-- call of that window only reads the limit. One script, so two instances never apply a window twice.
-- KEYS[1] the limit's windows (adaptive_report.lua), KEYS[2] its state (a hash: limit, n no-load µs, slow 1/0,
--         a the last window applied); same hash slot
-- ARGV window ms, min, max, initial, tolerance
-- Returns {limit (text, a fraction), no-load µs, slow start 1/0, the index of the last window applied}
if redis.replicate_commands then
    redis.replicate_commands()
end
local window_ms = tonumber(ARGV[1])
local min, max, initial, tolerance = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local t = redis.call('TIME')
local now_ms = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local closed = math.floor(now_ms / window_ms) - 1
local state = redis.call('HMGET', KEYS[2], 'limit', 'n', 'slow', 'a')
local limit, noload, slow, applied = tonumber(state[1]), tonumber(state[2]), state[3], tonumber(state[4])
if not limit then
    limit, noload, slow, applied = initial, 0, '1', closed - 1
end
local function clamp(x)
    return math.max(min, math.min(max, x))
end
if applied < closed then
    local at = string.format('%.0f', closed) .. ':'
    local w = redis.call('HMGET', KEYS[1], at .. 'c', at .. 's', at .. 'l', at .. 'd', at .. 'p')
    local completed, sum, lowest = tonumber(w[1] or '0'), tonumber(w[2] or '0'), tonumber(w[3] or '0')
    local dropped, peak = tonumber(w[4] or '0'), tonumber(w[5] or '0')
    if dropped > 0 and dropped >= 0.1 * (completed + dropped) then
        limit, slow = clamp(limit * 0.9), '0'
    elseif completed > 0 then
        lowest = math.max(1, lowest)
        if noload == 0 or lowest < noload or peak * 2 <= math.floor(limit) then
            noload = lowest
        end
        local recent = sum / completed
        local tolerated = tolerance * noload
        if recent > tolerated then
            limit, slow = clamp(limit * math.max(0.5, tolerated / recent)), '0'
        elseif peak >= 0.9 * math.floor(limit) and recent <= noload * (1 + (tolerance - 1) * 0.8) then
            if slow == '1' or recent <= noload * (1 + (tolerance - 1) * 0.25) then
                limit = clamp(limit * 2)
            else
                limit = clamp(math.max(limit + 1, limit * math.min(1.1, tolerated / recent)))
            end
        end
    end
    applied = closed
    redis.call('HSET', KEYS[2], 'limit', string.format('%.17g', limit), 'n', string.format('%.0f', noload),
        'slow', slow, 'a', string.format('%.0f', applied))
    redis.call('PEXPIRE', KEYS[2], 86400000) -- a limit nobody calls for a day starts again from its settings
end
return {string.format('%.17g', limit), noload, tonumber(slow), applied}
