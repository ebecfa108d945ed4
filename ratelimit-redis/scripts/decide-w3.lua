-- the decision script of calls of the shape w3, as DecisionScripts assembles it from src/main/resources/.../limits (SHA-1 af9585113693f7c59b23ffffb0d32b6102f2365a)
-- for: 3 windows of one name for one identifier (the samples' search)
-- Written by: ./mvnw -q -pl ratelimit-redis -am test -Dtest=AssembledScriptsTest -Dsurefire.failIfNoSpecifiedTests=false -Dratelimit.scripts.write=true
-- Do not edit: change the pieces, then write these files again. The script starts below this line.
-- ratelimit decision script for calls of the shape w3 (assembled by DecisionScripts from decide/*.lua)
if redis.replicate_commands then
    -- Redis < 5 replicates scripts verbatim unless told otherwise; TIME must not be re-run on replicas.
    redis.replicate_commands()
end
local call = redis.call
local floor, ceil, max, min = math.floor, math.ceil, math.max, math.min
local format, rep, spack, sunpack, tonumber = string.format, string.rep, struct.pack, struct.unpack, tonumber

-- Redis's clock, read once per script call by every script that decides or changes a limit (a decision, a give-back,
-- a charge, a credit, a held slot's release): now_us and now_ms, from Redis's TIME only. A test that moves the clock
-- assembles its scripts with a clock of its own in place of this one (DecisionScripts takes the clock's source); no
-- production script reads the time from an argument.
local t = redis.call('TIME')
local now_us = tonumber(t[1]) * 1000000 + tonumber(t[2])
local now_ms = math.floor(now_us / 1000)
local calls = tonumber(ARGV[1])
if not calls then
    return redis.error_reply('ratelimit: bad number of calls')
end
if #ARGV ~= 1 + calls * (1 + 1) or #KEYS ~= calls * 1 or calls > math.huge then
    return redis.error_reply('ratelimit: ' .. #ARGV .. ' arguments and ' .. #KEYS .. ' keys for ' .. calls
        .. ' calls of 1 keys and 1 key names (at most math.huge calls)')
end
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

local entry, still_live, write, settle -- ring_entries(SLOT), made once a call reads entries or keeps entries to write
local now_stamp = spack('>I6', now_ms) -- a ring entry of now_ms
local specs_w3 = {} -- the specs of keys of this kind, by text
local kept1, dirty1, kspec1 = nil, false, nil -- the key whose header is kept, whether it waits to be written
local head1, cap1, newest1, renew1 = 0, 0, 0, 0
local live1_1, oldest1_1, live1_2, oldest1_2, live1_3, oldest1_3
local run_first1, run_count1, run_time1 = 0, 0, 0
-- the current call's check per window: whether it has room, and for a refusal its remaining count, reset and retry (a
-- table reused by every call: Lua allows a function 200 locals). What has room is answered from the live counts.
local found1 = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}
-- Every call's arguments are checked before anything is written, so a bad one changes nothing. Each key's spec is
-- parsed once per script call into an array, however many calls of the batch share it.
for c = 1, calls do -- for c = 1, calls do (a shape too wide for a loop decides one call: do local c = 1)
    local a = 2 + (c - 1) * (1 + 1)
    if ARGV[a] ~= '1' then
        return redis.error_reply('ratelimit: bad number of keys for call ' .. c)
    end
    do -- its locals end with it: a wide call checks many keys
        local text = ARGV[a + 1]
        if not specs_w3[text] then
            local v = {}
            for d in string.gmatch(text or '', '%d+') do
                v[#v + 1] = tonumber(d)
            end
            local q, l1, w1, l2, w2, l3, w3 = unpack(v, 2, 7 + 1)
            -- checked whole, then read (Lua's patterns capture at most 32 values: 16 windows are 33)
            if not string.find(text or '', '^4,%d+,%d+,%d+,%d+,%d+,%d+,%d+$') or l1 < 1 or w1 < 1 or q > l1 or l2 < 1 or w2 < 1 or q > l2 or l3 < 1 or w3 < 1 or q > l3 then
                return redis.error_reply('ratelimit: bad arguments for key ' .. ((c - 1) * 1 + 1))
            end
            local longest, slack = max(w1, w2, w3), ceil(max(w1, w2, w3) / 8)
            specs_w3[text] = {4, 0, 0, q, 0, max(l1, l2, l3), longest, format('%d', longest + slack), slack, l1, w1, l2, w2, l3, w3}
        end
    end
end
-- the format of up to 24 integers joined by commas (a call's answers are usually fewer)
local JOINED, JOINED_MAX = '%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d', 24
local COMMON = '%d,%d,%d,%d,%d' -- a call's reply when each of its 3 answers is the common one
local replies = {}
local out = {0, 0, 0} -- the current call's answers (reused: a call's reply is made of the first m)
for c = 1, calls do
    local a, kb = 2 + (c - 1) * (1 + 1), (c - 1) * 1
    local admitted, held, capped = 1, nil, nil -- held: the time of the slot a refused waiting call holds
    local p1 = specs_w3[ARGV[a + 1]]
    local kn1, cost1, allowed1 = KEYS[kb + 1], p1[4], 1
    if kn1 ~= kept1 then
        if dirty1 then -- what the kept key's admissions wrote: entries, expiry (renewed once an eighth passed), header
            if run_count1 > 0 then
            do -- the entries taken and not written yet: one SETRANGE (two when they wrap)
                local stamp = run_time1 == now_ms and now_stamp or spack('>I6', run_time1)
                local fits = min(run_count1, cap1 - run_first1)
                call('SETRANGE', kept1, format('%d', 50 + run_first1 * SLOT), fits == 1 and stamp or rep(stamp, fits))
                if run_count1 > fits then
                    call('SETRANGE', kept1, '50', rep(stamp, run_count1 - fits))
                end
                run_count1 = 0
            end
            end
            if newest1 >= renew1 then
                call('PEXPIRE', kept1, kspec1[8])
                renew1 = newest1 + kspec1[9]
            end
            call('SETRANGE', kept1, '0', spack('>I4I4I6I6I4I6I4I6I4I6', head1, cap1, newest1, renew1,
                live1_1, live1_1 > 0 and oldest1_1 or 0, live1_2, live1_2 > 0 and oldest1_2 or 0, live1_3, live1_3 > 0 and oldest1_3 or 0))
            dirty1 = false
        end
        local h = call('GETRANGE', kn1, '0', '49')
        if #h >= 50 then
            head1, cap1, newest1, renew1, live1_1, oldest1_1, live1_2, oldest1_2, live1_3, oldest1_3 = sunpack('>I4I4I6I6I4I6I4I6I4I6', h)
        else
            head1, cap1, newest1, renew1, live1_1, oldest1_1, live1_2, oldest1_2, live1_3, oldest1_3 = 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
        end
        if cap1 == 0 then
            cap1 = p1[6] -- a new ring (the spec names every limit: the capacity never changes)
        end
        kept1, run_count1 = kn1, 0
    end
    local now1 = max(now_ms, newest1) -- never let a clock step back reopen a window
    do -- window 1
        local l, w, live, oldest = p1[10], p1[11], live1_1, oldest1_1
        local leaving = live > 0 and now1 - oldest >= w
        if leaving or live + cost1 > l then
            if not entry then
                entry, still_live, write, settle = ring_entries(SLOT)
            end
            if run_count1 > 0 then -- before entries are read
            do -- the entries taken and not written yet: one SETRANGE (two when they wrap)
                local stamp = run_time1 == now_ms and now_stamp or spack('>I6', run_time1)
                local fits = min(run_count1, cap1 - run_first1)
                call('SETRANGE', kept1, format('%d', 50 + run_first1 * SLOT), fits == 1 and stamp or rep(stamp, fits))
                if run_count1 > fits then
                    call('SETRANGE', kept1, '50', rep(stamp, run_count1 - fits))
                end
                run_count1 = 0
            end
            end
            if leaving then -- true whether or not this call is admitted
                live, oldest = still_live(kn1, 50, head1, cap1, live, oldest, w, now1)
                live1_1, oldest1_1 = live, oldest
            end
        end
        if live + cost1 > l then
            -- the oldest live entries must leave until the cost fits: the last of them is the (live + cost - limit)-th
            -- oldest live entry; counted from now_ms, the time the caller sees
            local needed = entry(kn1, 50, head1, cap1, cap1 - l + cost1 - 1)
            found1[1], found1[2], found1[3], found1[4] =
                0, l - live, newest1 + w - now1, needed + w - now_ms
            allowed1 = 0
        else
            found1[1] = 1
        end
    end
    do -- window 2
        local l, w, live, oldest = p1[12], p1[13], live1_2, oldest1_2
        local leaving = live > 0 and now1 - oldest >= w
        if leaving or live + cost1 > l then
            if not entry then
                entry, still_live, write, settle = ring_entries(SLOT)
            end
            if run_count1 > 0 then -- before entries are read
            do -- the entries taken and not written yet: one SETRANGE (two when they wrap)
                local stamp = run_time1 == now_ms and now_stamp or spack('>I6', run_time1)
                local fits = min(run_count1, cap1 - run_first1)
                call('SETRANGE', kept1, format('%d', 50 + run_first1 * SLOT), fits == 1 and stamp or rep(stamp, fits))
                if run_count1 > fits then
                    call('SETRANGE', kept1, '50', rep(stamp, run_count1 - fits))
                end
                run_count1 = 0
            end
            end
            if leaving then -- true whether or not this call is admitted
                live, oldest = still_live(kn1, 50, head1, cap1, live, oldest, w, now1)
                live1_2, oldest1_2 = live, oldest
            end
        end
        if live + cost1 > l then
            -- the oldest live entries must leave until the cost fits: the last of them is the (live + cost - limit)-th
            -- oldest live entry; counted from now_ms, the time the caller sees
            local needed = entry(kn1, 50, head1, cap1, cap1 - l + cost1 - 1)
            found1[5], found1[6], found1[7], found1[8] =
                0, l - live, newest1 + w - now1, needed + w - now_ms
            allowed1 = 0
        else
            found1[5] = 1
        end
    end
    do -- window 3
        local l, w, live, oldest = p1[14], p1[15], live1_3, oldest1_3
        local leaving = live > 0 and now1 - oldest >= w
        if leaving or live + cost1 > l then
            if not entry then
                entry, still_live, write, settle = ring_entries(SLOT)
            end
            if run_count1 > 0 then -- before entries are read
            do -- the entries taken and not written yet: one SETRANGE (two when they wrap)
                local stamp = run_time1 == now_ms and now_stamp or spack('>I6', run_time1)
                local fits = min(run_count1, cap1 - run_first1)
                call('SETRANGE', kept1, format('%d', 50 + run_first1 * SLOT), fits == 1 and stamp or rep(stamp, fits))
                if run_count1 > fits then
                    call('SETRANGE', kept1, '50', rep(stamp, run_count1 - fits))
                end
                run_count1 = 0
            end
            end
            if leaving then -- true whether or not this call is admitted
                live, oldest = still_live(kn1, 50, head1, cap1, live, oldest, w, now1)
                live1_3, oldest1_3 = live, oldest
            end
        end
        if live + cost1 > l then
            -- the oldest live entries must leave until the cost fits: the last of them is the (live + cost - limit)-th
            -- oldest live entry; counted from now_ms, the time the caller sees
            local needed = entry(kn1, 50, head1, cap1, cap1 - l + cost1 - 1)
            found1[9], found1[10], found1[11], found1[12] =
                0, l - live, newest1 + w - now1, needed + w - now_ms
            allowed1 = 0
        else
            found1[9] = 1
        end
    end
    if allowed1 == 0 then
        admitted = 0
    end
    -- the call is admitted (1), or holds a slot (2): each key with room takes its cost (unless only checked)
    local took1 = admitted == 1
    if took1 and cost1 > 0 then
        -- the entries join those not written yet when they follow them in the ring with the same time (else those are
        -- written first); the header waits
        if run_count1 > 0 and run_time1 == now1 and (run_first1 + run_count1) % cap1 == head1
            and run_count1 + cost1 <= cap1 then
            run_count1 = run_count1 + cost1
        else
            if run_count1 > 0 then
            do -- the entries taken and not written yet: one SETRANGE (two when they wrap)
                local stamp = run_time1 == now_ms and now_stamp or spack('>I6', run_time1)
                local fits = min(run_count1, cap1 - run_first1)
                call('SETRANGE', kept1, format('%d', 50 + run_first1 * SLOT), fits == 1 and stamp or rep(stamp, fits))
                if run_count1 > fits then
                    call('SETRANGE', kept1, '50', rep(stamp, run_count1 - fits))
                end
                run_count1 = 0
            end
            end
            run_first1, run_count1, run_time1 = head1, cost1, now1
        end
        if live1_1 == 0 then
            oldest1_1 = now1 -- the first entry written now
        end
        live1_1 = live1_1 + cost1
        if live1_2 == 0 then
            oldest1_2 = now1 -- the first entry written now
        end
        live1_2 = live1_2 + cost1
        if live1_3 == 0 then
            oldest1_3 = now1 -- the first entry written now
        end
        live1_3 = live1_3 + cost1
        head1, newest1, dirty1, kspec1 = (head1 + cost1) % cap1, now1, true, p1
    end
    out[1], out[2] = admitted, now_ms
    local m = 2
    if found1[1] == 1 then
        -- window 1 had room: what is left is its limit less its live count (the cost in it if the call took it); the
        -- reset is a whole window for a call that costs, else when its oldest live entry leaves
        local l, w = p1[10], p1[11]
        local reset = cost1 > 0 and w or live1_1 > 0 and newest1 + w - now1 or 0
        if reset == w and l >= live1_1 then
            out[m + 1], m = l - live1_1, m + 1
        else
            out[m + 1], out[m + 2], out[m + 3], out[m + 4], m = -1, l - live1_1, reset, 0, m + 4
        end
    else
        out[m + 1], out[m + 2], out[m + 3], out[m + 4], m =
            -2, found1[2], found1[3], found1[4], m + 4
    end
    if found1[5] == 1 then
        -- window 2 had room: what is left is its limit less its live count (the cost in it if the call took it); the
        -- reset is a whole window for a call that costs, else when its oldest live entry leaves
        local l, w = p1[12], p1[13]
        local reset = cost1 > 0 and w or live1_2 > 0 and newest1 + w - now1 or 0
        if reset == w and l >= live1_2 then
            out[m + 1], m = l - live1_2, m + 1
        else
            out[m + 1], out[m + 2], out[m + 3], out[m + 4], m = -1, l - live1_2, reset, 0, m + 4
        end
    else
        out[m + 1], out[m + 2], out[m + 3], out[m + 4], m =
            -2, found1[6], found1[7], found1[8], m + 4
    end
    if found1[9] == 1 then
        -- window 3 had room: what is left is its limit less its live count (the cost in it if the call took it); the
        -- reset is a whole window for a call that costs, else when its oldest live entry leaves
        local l, w = p1[14], p1[15]
        local reset = cost1 > 0 and w or live1_3 > 0 and newest1 + w - now1 or 0
        if reset == w and l >= live1_3 then
            out[m + 1], m = l - live1_3, m + 1
        else
            out[m + 1], out[m + 2], out[m + 3], out[m + 4], m = -1, l - live1_3, reset, 0, m + 4
        end
    else
        out[m + 1], out[m + 2], out[m + 3], out[m + 4], m =
            -2, found1[10], found1[11], found1[12], m + 4
    end
    if capped then
        for j = 1, #capped do
            out[m + j] = capped[j]
        end
        m = m + #capped
    end
    -- one bulk string, cheaper to read than a list: the answers joined by commas, made with %d (see ring.lua)
    if m == 3 + 2 then
        replies[c] = format(COMMON, unpack(out, 1, m))
    else
        local f = m <= JOINED_MAX and string.sub(JOINED, 1, 3 * m - 1) or rep('%d,', m - 1) .. '%d'
        replies[c] = format(f, unpack(out, 1, m))
    end
    -- the call is decided and answered
end
        if dirty1 then -- what the kept key's admissions wrote: entries, expiry (renewed once an eighth passed), header
            if run_count1 > 0 then
            do -- the entries taken and not written yet: one SETRANGE (two when they wrap)
                local stamp = run_time1 == now_ms and now_stamp or spack('>I6', run_time1)
                local fits = min(run_count1, cap1 - run_first1)
                call('SETRANGE', kept1, format('%d', 50 + run_first1 * SLOT), fits == 1 and stamp or rep(stamp, fits))
                if run_count1 > fits then
                    call('SETRANGE', kept1, '50', rep(stamp, run_count1 - fits))
                end
                run_count1 = 0
            end
            end
            if newest1 >= renew1 then
                call('PEXPIRE', kept1, kspec1[8])
                renew1 = newest1 + kspec1[9]
            end
            call('SETRANGE', kept1, '0', spack('>I4I4I6I6I4I6I4I6I4I6', head1, cap1, newest1, renew1,
                live1_1, live1_1 > 0 and oldest1_1 or 0, live1_2, live1_2 > 0 and oldest1_2 or 0, live1_3, live1_3 > 0 and oldest1_3 or 0))
            dirty1 = false
        end
return replies
