-- Grants keys units more for their current window or period (a bill paid, a support ticket), atomically per key:
-- - fixed window and calendar quota: the count goes down by the units, below zero if need be, so that more than the
--   limit may be taken until the window or period ends (a key without a count starts a window, or holds the period,
--   from now);
-- - sliding window: the newest counted calls are forgotten (taken out of the ring), at most what the window holds;
--   a key of several windows of one identifier forgets them from every window;
-- - token bucket: the bucket refills by the units, at most until it is full.
-- A credit never carries into a later window, and no expiry is made longer than the key's own.
--
-- KEYS[1]  the credit's marker (its attempt id, in the same slot): a credit sent again after its answer was lost is
--          applied once
-- KEYS     then the keys credited (all in one hash slot)
-- ARGV[1]  how long the marker lives, ms
-- ARGV[2]  the units
-- ARGV     then per key one spec, numbers joined by commas: algorithm (1 sliding window, 2 fixed window, 3 token
--          bucket), limit, window ms; 5 (calendar quota), limit, 0, then the starts of four periods (epoch ms; the
--          period is the one of the three they bound that Redis's clock falls in); or 4 (several sliding windows), then
--          the windows in ms
--
-- Returns {the units granted per key}, or {-1} when this attempt's credit was applied before (nothing changes).

if redis.replicate_commands then
    redis.replicate_commands()
end

local call = redis.call
local ceil, floor, max, min = math.ceil, math.floor, math.max, math.min

local t = call('TIME')
local now_us = tonumber(t[1]) * 1000000 + tonumber(t[2])
local now_ms = floor(now_us / 1000)

if #KEYS < 2 or #ARGV ~= #KEYS + 1 then
    return redis.error_reply('ratelimit: ' .. #ARGV .. ' arguments for ' .. #KEYS .. ' keys')
end
local units = tonumber(ARGV[2])
if not string.match(ARGV[1], '^%d+$') or not string.match(ARGV[2], '^%d+$') or units < 1 then
    return redis.error_reply('ratelimit: bad marker time or units')
end
local specs = {}
for i = 3, #ARGV do
    if not string.match(ARGV[i], '^%d+[%d,]*$') then
        return redis.error_reply('ratelimit: bad spec ' .. (i - 2))
    end
    local v = {}
    for part in string.gmatch(ARGV[i], '%d+') do
        v[#v + 1] = tonumber(part)
    end
    local g = v[1]
    if g == 5 then
        -- the current period, by Redis's clock, at [8] and [9]
        for j = 4, 6 do
            if v[j] and v[j + 1] and v[j] <= now_ms and now_ms < v[j + 1] then
                v[8], v[9] = v[j], v[j + 1]
            end
        end
        if not v[8] then
            return redis.error_reply('ratelimit: Redis time ' .. now_ms .. ' is in none of the calendar periods given')
        end
    elseif not (g == 1 or g == 2 or g == 3) or #v ~= 3 or v[2] < 1 or v[3] < 1 then
        if g ~= 4 or #v < 3 then
            return redis.error_reply('ratelimit: bad spec ' .. (i - 2))
        end
    end
    specs[i - 2] = v
end
if not call('SET', KEYS[1], '1', 'NX', 'PX', ARGV[1]) then
    return {-1}
end

local entry, still_live = ring_entries(SLOT)
local multi

-- A count that goes down by the units until `ends` (ms; a count without expiry, which cannot come from us, gets it)
local function credit_count(kn, current, ends)
    if current then
        call('DECRBY', kn, format('%d', units))
        if call('PTTL', kn) < 0 then
            call('PEXPIRE', kn, format('%d', max(1, ends - now_ms)))
        end
    else
        call('SET', kn, format('%d', -units), 'PX', format('%d', max(1, ends - now_ms)))
    end
    return units
end

-- The ring's newest `n` entries forgotten: the head moves back over them, so they become the oldest slots, which no
-- decision reads (only live entries are read) and the next admissions overwrite. Returns the new head.
local function forget_newest(head, cap, n)
    return (head - n) % cap
end

local granted = {}
for i = 2, #KEYS do
    local kn, v = KEYS[i], specs[i - 1]
    local g = v[1]
    local given = 0
    if g == 1 then
        local limit, window = v[2], v[3]
        local h = call('GETRANGE', kn, '0', HEAD_LAST)
        if #h >= HEAD then
            local head, live, newest, oldest, cap = sunpack(HEADER, h)
            if live > 0 and now_ms - oldest >= window then -- what is live is counted at Redis's time
                live, oldest = still_live(kn, HEAD, head, cap, live, oldest, window, now_ms)
            end
            given = min(units, live)
            if given > 0 then
                head, live = forget_newest(head, cap, given), live - given
                if live > 0 then
                    newest = entry(kn, HEAD, head, cap, cap - 1)
                else
                    newest, oldest = 0, 0
                end
                call('SETRANGE', kn, '0', spack(HEADER, head, live, newest, oldest, cap))
            end
        end
    elseif g == 4 then
        local n = #v - 1
        multi = multi or multi_codec()
        local size = multi.header_size(n)
        local h = call('GETRANGE', kn, '0', format('%d', size - 1))
        if #h >= size then
            local s = multi.state(h, n)
            local head, cap, newest = s[1], s[2], s[3]
            local now = max(now_ms, newest)
            local most = 0
            for j = 1, n do
                local w, live, oldest = v[1 + j], s[3 + 2 * j], s[4 + 2 * j]
                if live > 0 and now - oldest >= w then
                    live, oldest = still_live(kn, size, head, cap, live, oldest, w, now)
                    s[3 + 2 * j], s[4 + 2 * j] = live, oldest
                end
                most = max(most, live)
            end
            given = min(units, most)
            if given > 0 then
                s[1] = forget_newest(head, cap, given)
                for j = 1, n do
                    s[3 + 2 * j] = max(0, s[3 + 2 * j] - given)
                end
                s[3] = most > given and entry(kn, size, s[1], cap, cap - 1) or 0
                call('SETRANGE', kn, '0', multi.pack(s, n))
            end
        end
    elseif g == 2 then
        local window = v[3]
        local pttl = call('PTTL', kn)
        given = credit_count(kn, pttl ~= -2, now_ms + (pttl > 0 and pttl or window))
    elseif g == 5 then
        local from, to = v[8], v[9]
        local pttl = call('PTTL', kn)
        -- a count that expires before the period starts is the last period's: replaced
        given = credit_count(kn, pttl >= 0 and now_ms + pttl > from, to)
    elseif g == 3 then
        local limit, window = v[2], v[3]
        local interval = window * 1000 / limit
        local tat = max(tonumber(call('GET', kn) or '0'), now_us)
        local new_tat = max(now_us, tat - units * interval)
        given = min(units, ceil((tat - now_us) / interval))
        if new_tat <= now_us then
            call('DEL', kn)
        else
            call('SET', kn, format('%.0f', new_tat), 'PX', format('%d', max(1, ceil((new_tat - now_us) / 1000))))
        end
    end
    granted[i - 1] = given
end
return granted
