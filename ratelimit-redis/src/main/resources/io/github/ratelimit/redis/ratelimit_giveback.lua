-- Gives back what one call took in one hash slot, when the call's part in another slot refused it (a call whose
-- identifiers fall into several slots of a Redis Cluster is decided by one script per slot). What is given back is
-- exactly what that call took, from the same window or bucket, or nothing: it never makes room that the call's own
-- take did not use up, so a give-back can only leave a limit more conservative than it would be without that call.
--
-- KEYS[1]   the give-back's marker (same slot): a give-back runs once per call and slot, however often it is sent
-- KEYS[2..] the call's keys in this slot that took their cost
-- ARGV[1]   the Redis time (ms) of the take, as its reply said
-- ARGV[2]   how long the marker lives, ms (the longest window of the keys)
-- then per key: algorithm (1 sliding window, 2 fixed window, 3 token bucket), limit, window ms, cost, and the
--           reset ms the take reported for it; for several sliding windows in one key (ring.lua): 4, the number w of
--           windows, 0, cost, 0, then the w windows in ms
--
-- Returns {the number of keys given back} (0 when the marker says this give-back already ran).

if redis.replicate_commands then
    redis.replicate_commands()
end

local call = redis.call
local ceil, max, min, abs = math.ceil, math.max, math.min, math.abs

if not call('SET', KEYS[1], '1', 'NX', 'PX', tonumber(ARGV[2])) then
    return {0}
end

local t = call('TIME')
local now_us = tonumber(t[1]) * 1000000 + tonumber(t[2])
local now_ms = math.floor(now_us / 1000)
local taken_at = tonumber(ARGV[1])
local entry = ring_entries(SLOT)
local taken = ring_taken(entry)

-- Sliding window: the call wrote `cost` entries holding its decision time. They are taken out of the ring (the
-- entries newer than them move down, so the ring stays in time order), unless they already left the window or are
-- not all there (the key was reset, or a clock step made the take write another time): then nothing changes.
-- `lowest` is the logical index of the oldest entry that may be the call's. Returns the logical index the call's
-- oldest entry had and the ring's new head, or nil.
local function take_out(key, base, head, cap, lowest, cost)
    local top, n = taken(key, base, head, cap, lowest, taken_at, cost)
    if n < cost then
        return nil
    end
    for j = top + 1, cap - 1 do -- the newer entries move down by `cost`
        local from = base + (head + j) % cap * SLOT
        call('SETRANGE', key, base + (head + j - cost) % cap * SLOT, call('GETRANGE', key, from, from + SLOT - 1))
    end
    head = (head + cap - cost) % cap -- the last `cost` slots become the oldest ones: empty
    call('SETRANGE', key, base + head * SLOT, rep('\0', SLOT * min(cost, cap - head)))
    if cost > cap - head then
        call('SETRANGE', key, base, rep('\0', SLOT * (cost - (cap - head))))
    end
    return top - cost + 1, head
end

local function sliding(key, window, cost)
    if now_ms - taken_at >= window then
        return 0 -- the entries no longer count
    end
    local h = call('GETRANGE', key, 0, HEAD - 1)
    if #h < HEAD then
        return 0
    end
    local head, live, _, _, cap = sunpack(HEADER, h)
    if cap == 0 then
        return 0
    end
    local first
    first, head = take_out(key, HEAD, head, cap, cap - live, cost)
    if not first then
        return 0
    end
    live = live - cost
    if live == 0 then
        call('DEL', key)
        return 1
    end
    call('SETRANGE', key, 0, spack(HEADER, head, live, entry(key, HEAD, head, cap, cap - 1),
        entry(key, HEAD, head, cap, cap - live), cap))
    return 1
end

-- Several sliding windows in one ring (ring.lua): the call's entries are taken out once, and each window that counted
-- them counts `cost` fewer.
local function multi_sliding(key, windows, cost)
    local n = #windows
    local counted = false
    for j = 1, n do
        counted = counted or now_ms - taken_at < windows[j]
    end
    if not counted then
        return 0
    end
    local codec = multi_codec()
    local base = codec.header_size(n)
    local head, cap, _, renew, lives, oldests = codec.fields(call('GETRANGE', key, 0, base - 1), n)
    if cap == 0 then
        return 0
    end
    local most = 0
    for j = 1, n do
        most = max(most, lives[j])
    end
    local first
    first, head = take_out(key, base, head, cap, cap - most, cost)
    if not first then
        return 0
    end
    local left = 0
    for j = 1, n do
        if first >= cap - lives[j] then -- this window counted the call's entries
            lives[j] = lives[j] - cost
        end
        if lives[j] > 0 then
            oldests[j] = entry(key, base, head, cap, cap - lives[j])
        end
        left = max(left, lives[j])
    end
    if left == 0 then
        call('DEL', key)
        return 1
    end
    call('SETRANGE', key, 0, codec.header(head, cap, entry(key, base, head, cap, cap - 1), renew, lives, oldests, n))
    return 1
end

-- Fixed window: the counter is decremented only while it is the window the call counted in. A window is told by its
-- end: the take's reply said when it would end, and any later window ends at least one window later (its counter is
-- created once this one has expired). Both ends are measured a few milliseconds apart at most (the clock moves while a
-- batch of calls runs), so ends less than half a window apart are the same window.
local function fixed(key, window, cost, reset)
    if window <= 4 then
        return 0 -- too short to tell one window from the next by its end
    end
    local ends = taken_at + reset - 2
    local pttl = call('PTTL', key)
    if pttl <= 0 or abs(now_ms + pttl - ends) >= window / 2 then
        return 0
    end
    local count = tonumber(call('GET', key) or '0')
    local back = min(cost, count)
    if back <= 0 then
        return 0
    end
    call('DECRBY', key, back)
    return 1
end

-- Token bucket (GCRA): the theoretical arrival time moves back by the call's cost, but only while the call's own
-- take still reaches into the future (its arrival time, at least taken_at + reset - 1 ms, is after now): until then
-- every later take stacked on it, and moving back by exactly its cost is what the bucket would be without it. Later,
-- the bucket may have refilled past it, and nothing is given back.
local function bucket(key, limit, window, cost, reset)
    if (taken_at + reset - 1) * 1000 < now_us then
        return 0
    end
    local tat = tonumber(call('GET', key) or '0')
    if tat <= now_us then
        return 0
    end
    local new_tat = max(now_us, tat - cost * window * 1000 / limit)
    new_tat = ceil(new_tat)
    local ttl = ceil((new_tat - now_us) / 1000)
    if ttl < 1 then
        call('DEL', key)
    else
        call('SET', key, string.format('%.0f', new_tat), 'PX', ttl)
    end
    return 1
end

local given = 0
local a = 3
for k = 2, #KEYS do
    local g, l, w, q, r = tonumber(ARGV[a]), tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2]), tonumber(ARGV[a + 3]),
        tonumber(ARGV[a + 4])
    a = a + 5
    if g == 1 then
        given = given + sliding(KEYS[k], w, q)
    elseif g == 2 then
        given = given + fixed(KEYS[k], w, q, r)
    elseif g == 3 then
        given = given + bucket(KEYS[k], l, w, q, r)
    elseif g == 4 then
        local windows = {}
        for j = 1, l do
            windows[j] = tonumber(ARGV[a + j - 1])
        end
        a = a + l
        given = given + multi_sliding(KEYS[k], windows, q)
    end
end
return {given}
