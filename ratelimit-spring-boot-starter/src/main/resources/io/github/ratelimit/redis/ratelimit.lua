-- Decides one or more calls, in order, in one atomic script: a batch of calls that reached the same Redis
-- together (concurrent callers share a round trip; each call is still decided on its own). A call is admitted
-- only if every enforced key of it has room, and then each of its keys with room takes its cost; otherwise
-- nothing is written for that call. Shadow keys never decide a call: they take their cost when the call is
-- admitted and they have room, and report when they would have refused.
--
-- ARGV[1]          the number of calls
-- then per call:   the number n of its keys, then per key: algorithm (1 sliding window, 2 fixed window,
--                  3 token bucket), limit, window ms, cost, shadow (1) or enforced (0)
-- KEYS             the keys of the calls, in order (all in one hash slot)
--
-- Returns one list per call: {admitted (1/0), redis time ms, then per key: allowed (1/0), remaining, reset ms,
-- retry ms}. Time comes from the Redis server only. Every key written gets a TTL no longer than its window.

if redis.replicate_commands then
    -- Redis < 5 replicates scripts verbatim unless told otherwise; TIME must not be re-run on replicas.
    redis.replicate_commands()
end

local t = redis.call('TIME')
local now_us = tonumber(t[1]) * 1000000 + tonumber(t[2])
local now_ms = math.floor(now_us / 1000)

-- Sliding window: a ring of the last `limit` admission times, 6 bytes each (big-endian epoch ms), behind an
-- 8-byte header: the head (the slot of the oldest entry, which is also where the next one is written) and the
-- number of live entries at the last decision. Slots beyond the string's length read as 0 ("long ago"), so the
-- string grows only as it is used. Entries are in time order from the head, and the live ones are the newest,
-- so a decision reads O(1) slots: the header, the newest entry, the oldest live one, and (when entries left
-- the window since the last decision) a galloping search over just those.
local HEAD = 8
local SLOT = 6

-- big-endian unsigned integer of `width` bytes; a missing or short slot is 0
local function decode(s, width)
    if #s < width then
        return 0
    end
    local v = 0
    for i = 1, width do
        v = v * 256 + string.byte(s, i)
    end
    return v
end

local function encode(v, width)
    local bytes = {}
    for i = width, 1, -1 do
        bytes[i] = v % 256
        v = math.floor(v / 256)
    end
    return string.char(unpack(bytes))
end

-- the i-th oldest entry, i from 0
local function entry(key, head, limit, i)
    local slot = (head + i) % limit
    local from = HEAD + slot * SLOT
    return decode(redis.call('GETRANGE', key, from, from + SLOT - 1), SLOT)
end

local function sliding_check(key, limit, window, cost)
    local header = redis.call('GETRANGE', key, 0, HEAD - 1)
    local head, live = 0, 0
    if #header == HEAD then
        head = decode(string.sub(header, 1, 4), 4)
        live = decode(string.sub(header, 5, 8), 4)
    end
    local newest = 0
    if live > 0 then
        newest = entry(key, head, limit, limit - 1)
    end
    local now = math.max(now_ms, newest) -- never let a clock step back reopen the window
    -- entries that left the window since the last decision: the oldest live ones; gallop, then bisect
    local first = limit - live -- logical index of the oldest live entry
    if live > 0 and now - entry(key, head, limit, first) >= window then
        local lo, step = first + 1, 1
        local hi = limit
        while lo < limit do
            local probe = math.min(first + step, limit - 1)
            if now - entry(key, head, limit, probe) >= window then
                lo = probe + 1
                if probe == limit - 1 then
                    break
                end
                step = step * 2
            else
                hi = probe
                break
            end
        end
        while lo < hi do
            local mid = math.floor((lo + hi) / 2)
            if now - entry(key, head, limit, mid) >= window then
                lo = mid + 1
            else
                hi = mid
            end
        end
        live = limit - lo
    end
    local reset = 0
    if live > 0 then
        reset = newest + window - now
    end
    if cost == 0 then
        return {1, limit - live, reset, 0, nil}
    end
    if live + cost > limit then
        -- the cost-th oldest entry must leave the window; counted from now_ms, the time the caller sees
        local needed = entry(key, head, limit, cost - 1)
        return {0, limit - live, reset, needed + window - now_ms, nil}
    end
    return {1, limit - live - cost, window, 0, {head, now, live}}
end

local function sliding_commit(key, limit, window, cost, state)
    local head, now, live = state[1], state[2], state[3]
    local stamp = encode(now, SLOT)
    local first = math.min(cost, limit - head)
    redis.call('SETRANGE', key, HEAD + head * SLOT, string.rep(stamp, first))
    if cost > first then
        redis.call('SETRANGE', key, HEAD, string.rep(stamp, cost - first))
    end
    redis.call('SETRANGE', key, 0, encode((head + cost) % limit, 4) .. encode(live + cost, 4))
    redis.call('PEXPIRE', key, window)
end

-- Fixed window: a counter that expires `window` ms after the window's first admitted call.
local function fixed_check(key, limit, window, cost)
    local count = tonumber(redis.call('GET', key) or '0')
    local ttl = window
    local fresh = true
    if count > 0 then
        local pttl = redis.call('PTTL', key)
        if pttl >= 0 then
            ttl = pttl
            fresh = false
        end -- a counter without expiry cannot come from us: give it one on the next write
    end
    -- Redis deletes a key one millisecond after its PTTL reaches 0, and PTTL may be read in the millisecond
    -- after now_ms (the decision time the caller sees): 2 ms more, so that waiting the answer always suffices
    if count + cost > limit then
        return {0, limit - count, ttl + 2, ttl + 2, nil}
    end
    return {1, limit - count - cost, ttl + 2, 0, {count, ttl, fresh}}
end

local function fixed_commit(key, limit, window, cost, state)
    if cost == 0 then
        return
    end
    local count, ttl, fresh = state[1], state[2], state[3]
    if fresh then
        redis.call('SET', key, count + cost, 'PX', ttl)
    else
        redis.call('INCRBY', key, cost)
    end
end

-- Token bucket as GCRA: one theoretical arrival time (TAT, epoch microseconds) per key.
local function bucket_check(key, limit, window, cost)
    local interval = window * 1000 / limit
    local burst = window * 1000
    local tat = tonumber(redis.call('GET', key) or '0')
    tat = math.max(tat, now_us)
    local new_tat = tat + cost * interval
    local allow_at = new_tat - burst
    -- waits are counted from now_ms, the decision time the caller sees, and rounded up to whole ms, so
    -- that the decision time plus the wait is never before the moment the call can succeed
    if now_us < allow_at then
        local remaining = math.floor((now_us + burst - tat) / interval)
        return {0, remaining, math.ceil(tat / 1000) - now_ms, math.ceil(allow_at / 1000) - now_ms, nil}
    end
    local remaining = math.floor((now_us + burst - new_tat) / interval)
    return {1, remaining, math.ceil(new_tat / 1000) - now_ms, 0, {new_tat}}
end

local function bucket_commit(key, limit, window, cost, state)
    if cost == 0 then
        return
    end
    local new_tat = math.ceil(state[1])
    local ttl = math.max(1, math.ceil((new_tat - now_us) / 1000))
    redis.call('SET', key, string.format('%.0f', new_tat), 'PX', ttl)
end

local checks = {sliding_check, fixed_check, bucket_check}
local commits = {sliding_commit, fixed_commit, bucket_commit}

local calls = tonumber(ARGV[1])
-- every call's arguments are checked before anything is written, so a bad one changes nothing
local arg, keys = 2, 0
for c = 1, calls do
    local n = tonumber(ARGV[arg])
    for i = 1, n do
        local base = arg + (i - 1) * 5
        local algorithm = tonumber(ARGV[base + 1])
        local limit = tonumber(ARGV[base + 2])
        local window = tonumber(ARGV[base + 3])
        local cost = tonumber(ARGV[base + 4])
        if checks[algorithm] == nil or limit < 1 or window < 1 or cost < 0 or cost > limit then
            return redis.error_reply('ratelimit: bad arguments for key ' .. (keys + i))
        end
    end
    arg = arg + 1 + n * 5
    keys = keys + n
end
if keys ~= #KEYS then
    return redis.error_reply('ratelimit: ' .. #KEYS .. ' keys for ' .. keys .. ' limits')
end

local replies = {}
arg, keys = 2, 0
for c = 1, calls do
    local n = tonumber(ARGV[arg])
    local results = {}
    local admitted = 1
    for i = 1, n do
        local base = arg + (i - 1) * 5
        local r = checks[tonumber(ARGV[base + 1])](KEYS[keys + i], tonumber(ARGV[base + 2]),
            tonumber(ARGV[base + 3]), tonumber(ARGV[base + 4]))
        results[i] = r
        if r[1] == 0 and ARGV[base + 5] ~= '1' then
            admitted = 0
        end
    end
    local out = {admitted, now_ms}
    for i = 1, n do
        local r = results[i]
        local base = arg + (i - 1) * 5
        local cost = tonumber(ARGV[base + 4])
        local took = admitted == 1 and r[1] == 1
        if took and r[5] ~= nil then
            commits[tonumber(ARGV[base + 1])](KEYS[keys + i], tonumber(ARGV[base + 2]),
                tonumber(ARGV[base + 3]), cost, r[5])
        end
        local m = #out
        out[m + 1] = r[1]
        -- a key with room reports what is left after taking its cost; if it took nothing, add the cost back
        out[m + 2] = (r[1] == 1 and not took) and (r[2] + cost) or r[2]
        out[m + 3] = r[3]
        out[m + 4] = r[4]
    end
    replies[c] = out
    arg = arg + 1 + n * 5
    keys = keys + n
end
return replies
