-- the credit script, as DecisionScripts assembles it from src/main/resources/.../limits (SHA-1 a8df4dedee9cb50a2ecdb283cac1b3a03f3514f2)
-- for: every limit
-- Written by: ./mvnw -q -pl ratelimit-redis -am test -Dtest=AssembledScriptsTest -Dsurefire.failIfNoSpecifiedTests=false -Dratelimit.scripts.write=true
-- Do not edit: change the pieces, then write these files again. The script starts below this line.
-- The sliding window's ring, shared by the decision scripts and those that give back, charge, credit and release
-- (prepended to each when loaded: a script cannot include another). Defines constants and functions only; it runs no
-- Redis command. A ring of several windows' header is in decide/windows.lua.
--
-- A ring of the last `limit` admission times, 6 bytes each (big-endian epoch ms), behind a 24-byte header: the head
-- (3 bytes: the slot of the oldest entry, which is also where the next one is written), the number of live entries at
-- the last admission (3), the newest entry and the oldest live one (6 each), the ring's capacity (3: the limit it was
-- written for; a plan's quota may change, and then decide/sliding.lua's `grow` rewrites the ring for the new one), and
-- the time after the newest entry from which the key's expiry must be renewed (3, ms; 0: at the next admission). A key
-- lives its window and an eighth (at most 16,777,215 ms) past the admission that renewed it, so an admission renews it
-- once that eighth has passed, not every time: it lives at least a window past its newest entry. Capacities are at most
-- 16,777,215. Slots beyond the string's length read as 0 ("long ago"), so the string grows only as it is used. Entries
-- are in time order from the head and the live ones are the newest, so a decision reads the header only, unless
-- entries left the window since the last admission: then a galloping search over just those finds the new oldest.
local rep = string.rep
local format = string.format
local HEAD = 24
local SLOT = 6

-- Numbers given to redis.call are made text with %d here: Lua's own conversion prints every number as a float
-- ("%.14g"), which costs far more than an integer's digits.
local HEAD_LAST = '23' -- HEAD - 1, as text

-- Numbers are packed and unpacked by Redis's struct library (C), big-endian: 4-byte counts, 6-byte epoch ms.
local spack, sunpack = struct.pack, struct.unpack

-- The header of a ring of one window, for struct.unpack and struct.pack: head, live, newest, oldest, capacity, renewal.
local HEADER = '>I3I3I6I6I3I3'

-- ring_search(entry, SLOT) makes still_live, with `entry` of ring_entries.
local function ring_search(entry, SLOT)
    local call, format, sunpack = redis.call, string.format, struct.unpack

    -- Entries left the window since the last admission: the oldest of the `live` ones. The oldest live entries are
    -- read together, up to SPAN of them and not past the ring's end, with one command, and bisected here (entries
    -- leave a few at a time, so the new oldest is usually among them); past those, it gallops, then bisects, over
    -- single entries (`hi` is always a live entry, value `oldest`, or `cap`: none). Returns the live count and the
    -- oldest live entry. The caller knows that the oldest of the `live` entries left.
    local SPAN = 16
    local function still_live(key, base, head, cap, live, oldest, window, now)
        local first = cap - live -- logical index of the oldest entry that was live
        local from = (head + first) % cap -- its slot
        local span = math.min(live, SPAN, cap - from)
        if span > 1 then
            local s = call('GETRANGE', key, format('%d', base + from * SLOT),
                format('%d', base + (from + span) * SLOT - 1))
            local have = math.floor(#s / SLOT) -- slots beyond the string read as 0: they left long ago
            local lo, hi = 1, span -- the first of the span still inside is in [lo, hi], span meaning none
            while lo < hi do
                local mid = math.floor((lo + hi) / 2)
                if mid < have and now - sunpack('>I6', s, mid * SLOT + 1) < window then
                    hi = mid
                else
                    lo = mid + 1
                end
            end
            if lo < span then
                return live - lo, (sunpack('>I6', s, lo * SLOT + 1))
            end
        end
        first = first + span - 1 -- the last entry known to have left
        local lo, hi, step = first + 1, cap, 1
        while lo < cap do
            local probe = math.min(first + step, cap - 1)
            local v = entry(key, base, head, cap, probe)
            if now - v >= window then
                lo = probe + 1
                if probe == cap - 1 then
                    break
                end
                step = step * 2
            else
                hi, oldest = probe, v
                break
            end
        end
        while lo < hi do
            local mid = math.floor((lo + hi) / 2)
            local v = entry(key, base, head, cap, mid)
            if now - v >= window then
                lo = mid + 1
            else
                hi, oldest = mid, v
            end
        end
        return cap - lo, oldest
    end

    return still_live
end

-- Functions are made only where a call needs them: Lua makes every function of a script anew on each run, with an
-- upvalue for every outer local it captures, and for a lone decision those allocations, and the garbage they leave,
-- cost more than its commands. So the decision's common path reads and writes the header inline, and the makers
-- here capture no local of the script (they take what they need from Redis's libraries or as arguments; what they
-- make captures only the maker's own locals). ring_entries(SLOT) makes the readers and the writer of entries of a ring
-- of SLOT-byte entries, the first time a script call needs one: entry(key, base, head, cap, i),
-- still_live(key, base, head, cap, live, oldest, window, now), write(key, base, cap, first, count, stamp) and
-- settle(key, base, cap, first, count, now, header, expiry).
local function ring_entries(SLOT)
    local call, format, sunpack = redis.call, string.format, struct.unpack

    -- the i-th oldest entry of a ring of `cap` slots whose entries start at byte `base`, i from 0 (0 when missing)
    local function entry(key, base, head, cap, i)
        local from = base + (head + i) % cap * SLOT
        local s = call('GETRANGE', key, format('%d', from), format('%d', from + SLOT - 1))
        if #s < SLOT then
            return 0
        end
        return (sunpack('>I6', s))
    end

    local still_live = ring_search(entry, SLOT)

    -- writes `count` copies of `stamp` from slot `first`, wrapping at most once (one SETRANGE, two when it wraps):
    -- entries taken together, which bear the same time
    local function write(key, base, cap, first, count, stamp)
        local fits = math.min(count, cap - first)
        call('SETRANGE', key, format('%d', base + first * SLOT), fits == 1 and stamp or string.rep(stamp, fits))
        if count > fits then
            call('SETRANGE', key, format('%d', base), string.rep(stamp, count - fits))
        end
    end

    -- writes what a script call kept to write to a ring of one window: `count` entries at `now` from slot `first`
    -- (none when 0), its header (packed) and its expiry (ms, as text; nil: not renewed)
    local function settle(key, base, cap, first, count, now, header, expiry)
        if count > 0 then
            write(key, base, cap, first, count, struct.pack('>I6', now))
        end
        call('SETRANGE', key, '0', header)
        if expiry then
            call('PEXPIRE', key, expiry)
        end
    end

    return entry, still_live, write, settle
end

-- Grants keys units more for their current window or period (a bill paid, a support ticket), atomically per key, as
-- each algorithm's piece says (its credit section). A credit never carries into a later window, and no expiry is made
-- longer than the key's own.
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
local floor, ceil, max, min, abs = math.floor, math.ceil, math.max, math.min, math.abs
-- Redis's clock, read once per script call by every script that decides or changes a limit (a decision, a give-back,
-- a charge, a credit, a held slot's release): now_us and now_ms, from Redis's TIME only. A test that moves the clock
-- assembles its scripts with a clock of its own in place of this one (DecisionScripts takes the clock's source); no
-- production script reads the time from an argument.
local t = redis.call('TIME')
local now_us = tonumber(t[1]) * 1000000 + tonumber(t[2])
local now_ms = math.floor(now_us / 1000)
if #KEYS < 2 or #ARGV ~= #KEYS + 1 then
    return redis.error_reply('ratelimit: ' .. #ARGV .. ' arguments for ' .. #KEYS .. ' keys')
end
local units = tonumber(ARGV[2])
if not string.match(ARGV[1], '^%d+$') or not string.match(ARGV[2], '^%d+$') or units < 1 then
    return redis.error_reply('ratelimit: bad marker time or units')
end
-- The credit's specs, each checked and read into an array: [1] the algorithm, then its numbers; a calendar quota's
-- current period, by Redis's clock, at [8] and [9].
local specs = {}
for i = 3, #ARGV do
    local v = {}
    for part in string.gmatch(ARGV[i], '%d+') do
        v[#v + 1] = tonumber(part)
    end
    local g = v[1]
    if not string.match(ARGV[i], '^%d+[%d,]*$') or g == 4 and #v < 3
        or (g == 1 or g == 2 or g == 3) and (#v ~= 3 or v[2] < 1 or v[3] < 1) or g == 5 and #v ~= 7
        or not (g and g >= 1 and g <= 5) then
        return redis.error_reply('ratelimit: bad spec ' .. (i - 2))
    end
    if g == 5 then
        for j = 4, 6 do
            if v[j] <= now_ms and now_ms < v[j + 1] then
                v[8], v[9] = v[j], v[j + 1]
            end
        end
        if not v[8] then
            return redis.error_reply('ratelimit: Redis time ' .. now_ms .. ' is in none of the calendar periods given')
        end
    end
    specs[i - 2] = v
end
if not call('SET', KEYS[1], '1', 'NX', 'PX', ARGV[1]) then
    return {-1}
end
local entry, still_live = ring_entries(SLOT)
-- A ring's header as it stands, for the scripts after a decision: head, live, newest, oldest and capacity (the renewal
-- time is left out: they renew nothing, or always), or nothing for a key without one.
local function ring_header(key)
    local h = call('GETRANGE', key, '0', HEAD_LAST)
    if #h >= HEAD then
        return sunpack(HEADER, h)
    end
end
-- The newest counted calls are forgotten, at most what the window holds: the head moves back over them, so they become
-- the oldest slots, which no decision reads (only live entries are read) and the next admissions overwrite.
local function credit_sliding(kn, window, units)
    local head, live, newest, oldest, cap = ring_header(kn)
    if not head then
        return 0
    end
    if live > 0 and now_ms - oldest >= window then -- what is live is counted at Redis's time
        live, oldest = still_live(kn, HEAD, head, cap, live, oldest, window, now_ms)
    end
    local given = min(units, live)
    if given > 0 then
        head, live = (head - given) % cap, live - given
        if live > 0 then
            newest = entry(kn, HEAD, head, cap, cap - 1)
        else
            newest, oldest = 0, 0
        end
        call('SETRANGE', kn, '0', spack(HEADER, head, live, newest, oldest, cap, 0)) -- renewed at the next admission
    end
    return given
end
-- The header of a key of n windows read as one flat table: [1] head, [2] capacity, [3] newest, [4] renewal time, then
-- window j's live count at [3 + 2j] and its oldest live entry at [4 + 2j]; nil for a missing header. And its size.
local function windows_read(kn, n)
    local size = 20 + 10 * n
    local h = call('GETRANGE', kn, '0', string.format('%d', size - 1))
    if #h < size then
        return nil, size
    end
    return {struct.unpack('>I4I4I6I6' .. string.rep('I4I6', n), h)}, size
end

-- writes the header of a flat table (an oldest entry is written as 0 where its window has none live)
local function windows_write(kn, s, n)
    for j = 1, n do
        s[4 + 2 * j] = s[3 + 2 * j] > 0 and s[4 + 2 * j] or 0
    end
    call('SETRANGE', kn, '0', struct.pack('>I4I4I6I6' .. string.rep('I4I6', n), unpack(s, 1, 4 + 2 * n)))
end
-- The newest counted calls are forgotten from every window, at most what the fullest window holds.
local function credit_windows(kn, windows, units)
    local n = #windows
    local s, size = windows_read(kn, n)
    if not s then
        return 0
    end
    local head, cap, now, most = s[1], s[2], max(now_ms, s[3]), 0
    for j = 1, n do
        if s[3 + 2 * j] > 0 and now - s[4 + 2 * j] >= windows[j] then
            s[3 + 2 * j], s[4 + 2 * j] = still_live(kn, size, head, cap, s[3 + 2 * j], s[4 + 2 * j], windows[j], now)
        end
        most = max(most, s[3 + 2 * j])
    end
    local given = min(units, most)
    if given > 0 then
        s[1] = (head - given) % cap
        for j = 1, n do
            s[3 + 2 * j] = max(0, s[3 + 2 * j] - given)
        end
        s[3] = most > given and entry(kn, size, s[1], cap, cap - 1) or 0
        windows_write(kn, s, n)
    end
    return given
end
-- The count goes down by the units until `ends` (ms), below zero if need be, so that more than the limit may be taken
-- until the window ends; a key without a count starts a window from now. (A count without expiry, which cannot come
-- from us, gets one.)
local function credit_count(kn, current, ends, units)
    if current then
        call('DECRBY', kn, string.format('%d', units))
        if call('PTTL', kn) < 0 then
            call('PEXPIRE', kn, string.format('%d', max(1, ends - now_ms)))
        end
    else
        call('SET', kn, string.format('%d', -units), 'PX', string.format('%d', max(1, ends - now_ms)))
    end
    return units
end

local function credit_fixed(kn, window, units)
    local pttl = call('PTTL', kn)
    return credit_count(kn, pttl ~= -2, now_ms + (pttl > 0 and pttl or window), units)
end
-- As a fixed window's (fixed.lua, credit), for the period from `from` to `to`: a count that expires before the period
-- starts is the last period's, replaced.
local function credit_calendar(kn, from, to, units)
    local pttl = call('PTTL', kn)
    return credit_count(kn, pttl >= 0 and now_ms + pttl > from, to, units)
end
-- A time as whole µs `b` and `n` C-ths of a µs more (0 <= n < C), stored as "b" or "b:n". tat_read: the stored time,
-- or `now` if it is not later; tat_add: it plus k intervals of W / C µs (k may be negative); tat_up: the whole µs at or
-- after it; tat_text: as stored; tat_store (after a decision): stored until it passes, or deleted if it has.
local function tat_read(v, now)
    local b, n = string.match(v or '', '^(%d+):?(%d*)$')
    b, n = tonumber(b) or 0, tonumber(n) or 0
    if b > now or b == now and n > 0 then
        return b, n
    end
    return now, 0
end

local function tat_add(b, n, k, W, C)
    local r = W % C
    n = n + k * r
    local carry = math.floor(n / C)
    return b + k * ((W - r) / C) + carry, n - carry * C
end

local function tat_up(b, n)
    return n > 0 and b + 1 or b
end

local function tat_text(b, n)
    return n > 0 and string.format('%d:%d', b, n) or string.format('%d', b)
end

local function tat_store(key, b, n)
    if b < now_us or b == now_us and n == 0 then
        call('DEL', key)
    else
        call('SET', key, tat_text(b, n), 'PX', format('%d', max(1, ceil((tat_up(b, n) - now_us) / 1000))))
    end
end
-- The bucket refills by the units, at most until it is full.
local function credit_bucket(kn, limit, window, units)
    local b, n = tat_read(call('GET', kn), now_us)
    local owed = ceil(((b - now_us) * limit + n) / (window * 1000)) -- intervals until it is full
    tat_store(kn, tat_add(b, n, -units, window * 1000, limit))
    return min(units, owed)
end
local granted = {}
for i = 2, #KEYS do
    local kn, v = KEYS[i], specs[i - 1]
    local g = v[1]
    if g == 1 then
        granted[i - 1] = credit_sliding(kn, v[3], units)
    elseif g == 4 then
        granted[i - 1] = credit_windows(kn, {unpack(v, 2)}, units)
    elseif g == 2 then
        granted[i - 1] = credit_fixed(kn, v[3], units)
    elseif g == 5 then
        granted[i - 1] = credit_calendar(kn, v[8], v[9], units)
    else
        granted[i - 1] = credit_bucket(kn, v[2], v[3], units)
    end
end
return granted
