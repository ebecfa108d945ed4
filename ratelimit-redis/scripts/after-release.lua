-- the release script, as DecisionScripts assembles it from src/main/resources/.../limits (SHA-1 c88032cfe9ef544315750aef33b28054f65090bf)
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

-- Gives back a slot that a waiting call held (decide.lua, hold) when its caller gave up before the slot came (held.lua
-- says how).
--
-- KEYS      the call's keys that took their cost (rings of one sliding window, in one hash slot)
-- ARGV[1]   the slot's time (Redis ms), as the decision said
-- then per key: its window ms and the call's cost
--
-- Returns {the number of keys given back}.
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
local held = tonumber(ARGV[1])
if not held or held <= now_ms then
    return {0}
end
local entry, _, write = ring_entries(SLOT)
-- A ring's header as it stands, for the scripts after a decision: head, live, newest, oldest and capacity (the renewal
-- time is left out: they renew nothing, or always), or nothing for a key without one.
local function ring_header(key)
    local h = call('GETRANGE', key, '0', HEAD_LAST)
    if #h >= HEAD then
        return sunpack(HEADER, h)
    end
end
-- The entries one call wrote together (`count` of them at time `at`), for the scripts that undo a call's take:
-- searches from the newest entry down to logical index `lowest`; returns the logical index of the newest of them, how
-- many it found (fewer than `count` when they are not all there) and the logical index just below them.
local function taken(key, base, head, cap, lowest, at, count)
    local i = cap - 1
    while i >= lowest and entry(key, base, head, cap, i) > at do
        i = i - 1
    end
    local top, n = i, 0
    while i >= lowest and n < count and entry(key, base, head, cap, i) == at do
        n, i = n + 1, i - 1
    end
    return top, n, i
end
-- The slot's caller gave up before it came: the call's entries, dated at the slot, are dated again as early as the ring
-- allows without lowering any count: at the entry before them, or a window before the slot (each entry they replaced
-- was at least that old), whichever is later. The ring stays in time order, and the slot is free for others again from
-- then plus a window instead of from the slot plus a window. Nothing changes where the entries are not there (the key
-- was reset) or once the slot has come.
local function release_held(key, window, cost)
    local head, live, newest, oldest, cap = ring_header(key)
    if not head then
        return 0
    end
    local first = cap - live -- logical index of the oldest live entry
    local top, n, i = taken(key, HEAD, head, cap, first, held, cost)
    if n ~= cost then
        return 0
    end
    local dated = i >= first and max(held - window, entry(key, HEAD, head, cap, i)) or held - window
    for j = top - n + 1, top do
        write(key, HEAD, cap, (head + j) % cap, 1, spack('>I6', dated))
    end
    newest = top == cap - 1 and dated or newest
    oldest = i < first and dated or oldest -- they were the oldest live entries
    call('SETRANGE', key, '0', spack(HEADER, head, live, newest, oldest, cap, 0)) -- expiry renewed at the next admission
    return 1
end
local given = 0
for k = 1, #KEYS do
    given = given + release_held(KEYS[k], tonumber(ARGV[2 * k]), tonumber(ARGV[2 * k + 1]))
end
return {given}
