-- Takes a slot of an adaptive concurrency limit, whose limit is one value for the whole fleet. First, once per window,
-- the limit's step (core.internal.AdaptiveLimit, line by line) is applied to what every instance reported for the
-- windows closed since the last step, under the operator's steering if any: the first call after a window closed
-- applies it, every other call reads the result, and two instances never apply a window twice. Then the slot is taken
-- as concurrency_acquire.lua takes one, against the limit's whole part. Time is Redis's; windows are
-- floor(now / window ms).
-- KEYS[1] the holders (a sorted set scored by the end of their lease, ms), KEYS[2] the owners given back before they
--         ran, KEYS[3] the windows (a hash; adaptive_release.lua writes them), KEYS[4] the state (a hash: limit; n the
--         no-load µs; slow 1 in the slow start, else 0; a the last window applied; k the instances seen; r the last
--         window's mean latency µs; h the last windows applied, newest first, ';' between them, each
--         'index limit completed dropped refused peak mean-µs'), KEYS[5] the instances (a hash: instance, ms last
--         seen), KEYS[6] the operator's steering (a hash: pin, min, max; adaptive_steer.lua writes it); one hash slot
-- ARGV window ms, min, max, initial, tolerance, owner (one per attempt), lease ms, instance
-- Returns {1, holders, slots, instances, no-load µs, mean µs} when taken, {0, ...} the same when all slots are taken,
--         {-1, 0, 0, 0, 0, 0} when this attempt was given back before it ran (it takes nothing)
if redis.replicate_commands then
    redis.replicate_commands()
end
local window_ms = tonumber(ARGV[1])
local min, max, initial, tolerance = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local owner, lease, instance = ARGV[6], tonumber(ARGV[7]), ARGV[8]
if not window_ms or window_ms < 1 or not lease or lease < 1 or not min or min < 1 or not max or max < min then
    return redis.error_reply('ratelimit: bad adaptive concurrency arguments')
end
if redis.call('SISMEMBER', KEYS[2], owner) == 1 then
    return {-1, 0, 0, 0, 0, 0}
end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local current = math.floor(now / window_ms)
local function field(index, name)
    return string.format('%.0f', index) .. ':' .. name
end

-- the step, for each window closed since the last one applied (the windows hash keeps the last two)
local state = redis.call('HMGET', KEYS[4], 'limit', 'n', 'slow', 'a', 'k', 'r')
local limit, noload, slow, applied = tonumber(state[1]), tonumber(state[2]), state[3], tonumber(state[4])
local instances, mean = tonumber(state[5]) or 1, tonumber(state[6]) or 0
if not limit then
    limit, noload, slow, applied = initial, 0, '1', current - 2 -- saved by the step below, of an empty window
end
if applied < current - 1 then
    -- the operator's bounds replace the declared ones (one crossing the other moves it along); a pin holds the limit
    local steer = redis.call('HMGET', KEYS[6], 'pin', 'min', 'max')
    local pin, low, high = tonumber(steer[1]), tonumber(steer[2]) or min, tonumber(steer[3]) or max
    if low > high then
        if steer[2] then
            high = low
        else
            low = high
        end
    end
    local function clamp(x)
        return math.max(low, math.min(high, x))
    end
    local history = redis.call('HGET', KEYS[4], 'h') or ''
    for index = math.max(applied + 1, current - 2), current - 1 do
        local w = redis.call('HMGET', KEYS[3], field(index, 'c'), field(index, 's'), field(index, 'l'),
            field(index, 'd'), field(index, 'p'), field(index, 'o'), field(index, 'r'))
        local completed, sum, lowest = tonumber(w[1] or '0'), tonumber(w[2] or '0'), tonumber(w[3] or '0')
        local dropped, peak, over = tonumber(w[4] or '0'), tonumber(w[5] or '0'), tonumber(w[6] or '0')
        local refused = tonumber(w[7] or '0')
        mean = 0
        if completed > 0 then
            mean = math.floor(sum / completed)
        end
        if dropped > 0 and dropped >= 0.1 * (completed + dropped) then
            limit, slow = clamp(limit * 0.9), '0'
        elseif completed > 0 then
            lowest = math.max(1, lowest)
            if noload == 0 or lowest < noload or peak * 2 <= math.floor(limit) then
                noload = lowest
            end
            local recent = sum / completed
            local way = (recent / noload - 1) / (tolerance - 1)
            local target = noload * (1 + (tolerance - 1) * 0.25)
            local tail = over / completed -- the calls slower than tolerated, which the mean hides
            if way > 0.35 or tail > 0.01 then
                limit, slow = clamp(limit * math.max(0.5, math.min(target / recent, 1 - tail))), '0'
            elseif peak >= 0.9 * math.floor(limit) and way <= 0.15 then
                -- at the minimum (an incident, a cold start's slow first windows), with room: it starts again
                if slow == '1' or limit <= low then
                    limit, slow = clamp(limit * 2), '1'
                else
                    limit = clamp(math.max(limit + 1, limit * math.min(1.1, target / recent)))
                end
            end
        end
        limit = clamp(limit) -- within the bounds, which may have changed since the last window
        if pin then
            limit, slow = pin, '0'
        end
        history = string.format('%.0f %d %.0f %.0f %.0f %.0f %.0f', index, math.max(1, math.floor(limit)),
            completed, dropped, refused, peak, mean) .. (history == '' and '' or ';' .. history)
    end
    -- the last 30 windows kept: cut at the 30th ';'
    local cut, kept = 0, 0
    while kept < 30 do
        cut = string.find(history, ';', cut + 1, true)
        if not cut then
            break
        end
        kept = kept + 1
    end
    if cut then
        history = string.sub(history, 1, cut - 1)
    end
    -- the instances that took a slot in the last two windows: each one's share, should Redis stop answering
    instances = 0
    local seen = redis.call('HGETALL', KEYS[5])
    for i = 1, #seen, 2 do
        if tonumber(seen[i + 1]) >= now - 2 * window_ms then
            instances = instances + 1
        else
            redis.call('HDEL', KEYS[5], seen[i])
        end
    end
    instances = math.max(1, instances)
    redis.call('HSET', KEYS[4], 'limit', string.format('%.17g', limit), 'n', string.format('%.0f', noload),
        'slow', slow, 'a', string.format('%.0f', current - 1), 'k', instances, 'r', string.format('%.0f', mean),
        'h', history)
    redis.call('PEXPIRE', KEYS[4], 86400000) -- a limit nobody calls for a day starts again from its settings
end
redis.call('HSET', KEYS[5], instance, now)
redis.call('PEXPIRE', KEYS[5], 86400000)

-- the slot, against the limit's whole part (the step keeps it within the bounds, or at the pin)
local slots = math.max(1, math.floor(limit))
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local holders = redis.call('ZCARD', KEYS[1])
local taken = 0
if holders < slots then
    redis.call('ZADD', KEYS[1], now + lease, owner)
    if redis.call('PTTL', KEYS[1]) < lease then
        redis.call('PEXPIRE', KEYS[1], lease)
    end
    holders, taken = holders + 1, 1
else
    redis.call('HINCRBY', KEYS[3], field(current, 'r'), 1)
end
local peak = tonumber(redis.call('HGET', KEYS[3], field(current, 'p')) or '0')
if holders > peak then
    redis.call('HSET', KEYS[3], field(current, 'p'), holders)
end
local old = current - 3
redis.call('HDEL', KEYS[3], field(old, 'c'), field(old, 's'), field(old, 'l'), field(old, 'o'), field(old, 'd'),
    field(old, 'r'), field(old, 'p'))
redis.call('PEXPIRE', KEYS[3], window_ms * 4)
return {taken, holders, slots, instances, noload, mean}
