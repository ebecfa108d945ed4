-- the charge script, as DecisionScripts assembles it from src/main/resources/.../limits (SHA-1 082c29d6586c08634f5b4f858733fa2409eaf1dd)
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

-- Charges what calls used, known only after they ran (tokens of a model's answer, rows of an export), to every key
-- given, whether or not they have room: a limit can go past zero (what that means is each algorithm's charge section),
-- and then refuses until it has recovered. Each key's charge is one atomic step: charges of any number of instances add
-- up exactly.
-- KEYS[1]  the charge's marker (its attempt id, same slot): a charge sent again after its answer was lost counts once
-- KEYS     then the keys charged (all in one hash slot)
-- ARGV[1]  how long the marker lives, ms
-- ARGV     then per key: algorithm (1 sliding window, 2 fixed window, 3 token bucket), limit, window ms, units; or 4
--          (several sliding windows), the number w of windows, 0, units, then per window its limit and window ms
--
-- Returns {the number of keys charged}, or {-1} when this attempt's charge was applied before (nothing is charged).
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
-- The charge's arguments: numbers, as many as its keys' specs need.
for i = 1, #ARGV do
    if not string.match(ARGV[i], '^%d+$') then
        return redis.error_reply('ratelimit: bad argument ' .. i)
    end
end
local a = 2
for i = 2, #KEYS do
    local g, l = tonumber(ARGV[a] or '1'), tonumber(ARGV[a + 1] or '0')
    a = a + 4 + (g == 4 and 2 * l or 0)
end
if #KEYS < 1 or #ARGV ~= a - 1 then
    return redis.error_reply('ratelimit: ' .. #ARGV .. ' arguments for ' .. #KEYS .. ' keys')
end
if not call('SET', KEYS[1], '1', 'NX', 'PX', ARGV[1]) then
    return {-1}
end
local entry, still_live, write = ring_entries(SLOT)
-- A ring's header as it stands, for the scripts after a decision: head, live, newest, oldest and capacity (the renewal
-- time is left out: they renew nothing, or always), or nothing for a key without one.
local function ring_header(key)
    local h = call('GETRANGE', key, '0', HEAD_LAST)
    if #h >= HEAD then
        return sunpack(HEADER, h)
    end
end
-- Past zero: the ring keeps the newest `limit` admissions, so the units beyond the room left replace the oldest
-- admissions with the charge's time. A window refuses exactly while the true count of the last window is at the limit
-- or above; what exceeds a whole limit in one window is not owed beyond that window.
local function charge_sliding(kn, limit, window, units)
    local head, live, newest, oldest, cap = ring_header(kn)
    if not head then
        head, live, newest, oldest, cap = 0, 0, 0, 0, 0 -- a new ring
    end
    cap = cap == 0 and limit or cap -- a new ring (a ring written for another quota keeps its capacity)
    if live == 0 then
        newest, oldest = 0, 0
    end
    local now = max(now_ms, newest) -- dated at least the newest: the ring stays in time order
    if live > 0 and now_ms - oldest >= window then -- what is live is counted at Redis's time
        live, oldest = still_live(kn, HEAD, head, cap, live, oldest, window, now_ms)
    end
    local n = min(units, cap)
    write(kn, HEAD, cap, head, n, spack('>I6', now))
    head = (head + n) % cap
    if live + n <= cap then
        oldest, live = live == 0 and now or oldest, live + n
    else -- the ring is full: its oldest entry is the one at the head, the next to be replaced
        live, oldest = cap, entry(kn, HEAD, head, cap, 0)
    end
    local slack = min(ceil(window / 8), 16777215) -- its expiry renewed (ring.lua)
    call('SETRANGE', kn, '0', spack(HEADER, head, live, now, oldest, cap, slack))
    call('PEXPIRE', kn, format('%d', now - now_ms + window + slack))
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
-- Past zero as for one window (sliding.lua, charge): the units beyond the room of the ring (the largest limit) replace
-- its oldest entries, and each window counts them, at most a whole ring.
local function charge_windows(kn, limits, windows, units)
    local n, longest = #windows, max(unpack(windows))
    local s, size = windows_read(kn, n)
    if not s then
        s = {0, 0, 0, 0}
        for j = 1, n do
            s[3 + 2 * j], s[4 + 2 * j] = 0, 0
        end
    end
    s[2] = s[2] > 0 and s[2] or max(unpack(limits)) -- a new ring: the largest limit
    local head, cap, now = s[1], s[2], max(now_ms, s[3])
    for j = 1, n do -- what is live, read before any entry is replaced
        if s[3 + 2 * j] > 0 and now - s[4 + 2 * j] >= windows[j] then
            s[3 + 2 * j], s[4 + 2 * j] = still_live(kn, size, head, cap, s[3 + 2 * j], s[4 + 2 * j], windows[j], now)
        end
    end
    local c = min(units, cap)
    write(kn, size, cap, head, c, struct.pack('>I6', now))
    s[1], s[3] = (head + c) % cap, now
    for j = 1, n do
        if s[3 + 2 * j] + c <= cap then
            s[3 + 2 * j], s[4 + 2 * j] = s[3 + 2 * j] + c, s[3 + 2 * j] == 0 and now or s[4 + 2 * j]
        else -- every entry counts: the oldest is the one at the head, the next to be replaced
            s[3 + 2 * j], s[4 + 2 * j] = cap, entry(kn, size, s[1], cap, 0)
        end
    end
    local slack = ceil(longest / 8)
    s[4] = now + slack
    windows_write(kn, s, n)
    call('PEXPIRE', kn, string.format('%d', now - now_ms + longest + slack))
end
-- Past zero: the count goes above the limit; the window refuses until it ends, and its excess ends with it.
local function charge_fixed(kn, window, units)
    if call('PTTL', kn) > 0 then
        call('INCRBY', kn, string.format('%d', units))
    else
        call('SET', kn, string.format('%d', units), 'PX', string.format('%d', window))
    end
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
-- Past zero: the bucket owes the units (its TAT moves on), refilled at its rate: a debt of d units refuses for d
-- intervals more. At most 1,000 windows are owed.
local function charge_bucket(kn, limit, window, units)
    local b, n = tat_read(call('GET', kn), now_us)
    b, n = tat_add(b, n, units, window * 1000, limit)
    if b >= now_us + window * 1000 * 1000 then
        b, n = now_us + window * 1000 * 1000, 0
    end
    tat_store(kn, b, n)
end
local charged = 0
a = 2
for i = 2, #KEYS do
    local kn = KEYS[i]
    local g, limit, window, units = tonumber(ARGV[a]), tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2]),
        tonumber(ARGV[a + 3])
    a = a + 4
    if g == 4 then
        local limits, windows = {}, {}
        for j = 1, limit do
            limits[j], windows[j] = tonumber(ARGV[a + 2 * j - 2]), tonumber(ARGV[a + 2 * j - 1])
        end
        a = a + 2 * limit
        charge_windows(kn, limits, windows, units)
    elseif units == 0 or limit < 1 or window < 1 then
        charged = charged - 1
    elseif g == 1 then
        charge_sliding(kn, limit, window, units)
    elseif g == 2 then
        charge_fixed(kn, window, units)
    elseif g == 3 then
        charge_bucket(kn, limit, window, units)
    else
        return redis.error_reply('ratelimit: bad algorithm for key ' .. (i - 1))
    end
    charged = charged + 1
end
return {charged}
