-- the giveback script, as DecisionScripts assembles it from src/main/resources/.../limits (SHA-1 10b23223c1a39b0e89bae9f108858e040f8d226f)
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

-- Gives back what one call took in one hash slot, when the call's part in another slot refused it (a call whose
-- identifiers fall into several slots of a Redis Cluster is decided by one script per slot). What is given back is
-- exactly what that call took, from the same window or bucket, or nothing: it never makes room that the call's own
-- take did not use up, so a give-back can only leave a limit more conservative than it would be without that call.
--
-- KEYS[1]   the give-back's marker (same slot): a give-back runs once per call and slot, however often it is sent
-- KEYS[2..] the call's keys in this slot that took their cost
-- ARGV[1]   the Redis time (ms) of the take, as its reply said
-- ARGV[2]   how long the marker lives, ms (the longest window of the keys)
-- then per key: algorithm (1 sliding window, 2 fixed window or calendar quota, 3 token bucket), limit, window ms, cost,
--           and the reset ms the take reported for it; for a key of several windows: 4, the number w of windows, 0,
--           cost, 0, then the w windows in ms
--
-- Returns {the number of keys given back} (0 when the marker says this give-back already ran).
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
if not call('SET', KEYS[1], '1', 'NX', 'PX', tonumber(ARGV[2])) then
    return {0}
end
local taken_at = tonumber(ARGV[1])
local entry = ring_entries(SLOT)
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
-- The call wrote `cost` entries holding its decision time. They are taken out of the ring (the entries newer than them
-- move down, so the ring stays in time order), unless they already left the window or are not all there (the key was
-- reset, or a clock step made the take write another time): then nothing changes. `lowest` is the logical index of the
-- oldest entry that may be the call's. Returns the logical index the call's oldest entry had and the new head, or nil.
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

local function give_back_sliding(key, window, cost)
    if now_ms - taken_at >= window then
        return 0 -- the entries no longer count
    end
    local head, live, _, _, cap = ring_header(key)
    if not head then
        return 0 -- they are gone
    end
    local first
    if cap > 0 then
        first, head = take_out(key, HEAD, head, cap, cap - live, cost)
    end
    if not first then
        return 0
    end
    live = live - cost
    if live == 0 then
        call('DEL', key)
    else
        call('SETRANGE', key, 0, spack(HEADER, head, live, entry(key, HEAD, head, cap, cap - 1),
            entry(key, HEAD, head, cap, cap - live), cap, 0)) -- its expiry renewed at the next admission
    end
    return 1
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
-- The call's entries are taken out once (sliding.lua, take_out), and each window that counted them counts `cost` fewer.
local function give_back_windows(key, windows, cost)
    local n, counted = #windows, false
    for j = 1, n do
        counted = counted or now_ms - taken_at < windows[j]
    end
    local s, base = windows_read(key, n)
    if not counted or not s or s[2] == 0 then
        return 0
    end
    local head, cap, most, first = s[1], s[2], 0, nil
    for j = 1, n do
        most = max(most, s[3 + 2 * j])
    end
    first, head = take_out(key, base, head, cap, cap - most, cost)
    if not first then
        return 0
    end
    local left = 0
    for j = 1, n do
        if first >= cap - s[3 + 2 * j] then -- this window counted the call's entries
            s[3 + 2 * j] = s[3 + 2 * j] - cost
        end
        if s[3 + 2 * j] > 0 then
            s[4 + 2 * j] = entry(key, base, head, cap, cap - s[3 + 2 * j])
        end
        left = max(left, s[3 + 2 * j])
    end
    if left == 0 then
        call('DEL', key)
    else
        s[1], s[3] = head, entry(key, base, head, cap, cap - 1)
        windows_write(key, s, n)
    end
    return 1
end
-- The counter is decremented only while it is the window the call counted in. A window is told by its end: the take's
-- reply said when it would end, and any later window ends at least one window later (its counter is created once this
-- one has expired). Both ends are measured a few milliseconds apart at most (the clock moves while a batch of calls
-- runs), so ends less than half a window apart are the same window. A calendar quota is given back the same way.
local function give_back_fixed(key, window, cost, reset)
    local pttl = window > 4 and call('PTTL', key) or 0 -- a window of 4 ms or less is not told from the next
    if pttl <= 0 or abs(now_ms + pttl - (taken_at + reset - 2)) >= window / 2 then
        return 0
    end
    local back = min(cost, tonumber(call('GET', key) or '0'))
    if back <= 0 then
        return 0
    end
    call('DECRBY', key, back)
    return 1
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
-- The TAT moves back by the call's cost, but only while the call's own take still reaches into the future (its TAT, at
-- least taken_at + reset - 1 ms, is after now): until then every later take stacked on it, and moving back by exactly
-- its cost is what the bucket would be without it. Later, the bucket may have refilled past it, and nothing is given
-- back.
local function give_back_bucket(key, limit, window, cost, reset)
    local b, n = tat_read((taken_at + reset - 1) * 1000 >= now_us and call('GET', key) or nil, now_us)
    if tat_up(b, n) <= now_us then
        return 0
    end
    tat_store(key, tat_add(b, n, -cost, window * 1000, limit))
    return 1
end
local given = 0
local a = 3
for k = 2, #KEYS do
    local g, l, w, q, r = tonumber(ARGV[a]), tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2]), tonumber(ARGV[a + 3]),
        tonumber(ARGV[a + 4])
    a = a + 5
    if g == 1 then
        given = given + give_back_sliding(KEYS[k], w, q)
    elseif g == 2 then
        given = given + give_back_fixed(KEYS[k], w, q, r)
    elseif g == 3 then
        given = given + give_back_bucket(KEYS[k], l, w, q, r)
    elseif g == 4 then
        local windows = {}
        for j = 1, l do
            windows[j] = tonumber(ARGV[a + j - 1])
        end
        a = a + l
        given = given + give_back_windows(KEYS[k], windows, q)
    end
end
return {given}
