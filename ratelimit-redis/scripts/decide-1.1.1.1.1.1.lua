-- the decision script of calls of the shape 1.1.1.1.1.1, as DecisionScripts assembles it from src/main/resources/.../limits (SHA-1 5f4a680667167fb64e52018a19f3a35a336d578d)
-- for: 3 limits of their own names x 2 identifiers (benchmark)
-- Written by: ./mvnw -q -pl ratelimit-redis -am test -Dtest=AssembledScriptsTest -Dsurefire.failIfNoSpecifiedTests=false -Dratelimit.scripts.write=true
-- Do not edit: change the pieces, then write these files again. The script starts below this line.
-- ratelimit decision script for calls of the shape 1.1.1.1.1.1 (assembled by DecisionScripts from decide/*.lua)
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
if #ARGV ~= 1 + calls * (6 + 1) or #KEYS ~= calls * 6 or calls > math.huge then
    return redis.error_reply('ratelimit: ' .. #ARGV .. ' arguments and ' .. #KEYS .. ' keys for ' .. calls
        .. ' calls of 6 keys and 6 key names (at most math.huge calls)')
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
local kept, kept_head, kept_live, kept_newest, kept_oldest, kept_cap, kept_renew, kept_p
local kept_dirty, run_first, run_count, run_now = false, 0, 0, 0
local specs_1 = {} -- the specs of keys of this kind, by text
-- Every call's arguments are checked before anything is written, so a bad one changes nothing. Each key's spec is
-- parsed once per script call into an array, however many calls of the batch share it.
for c = 1, calls do -- for c = 1, calls do (a shape too wide for a loop decides one call: do local c = 1)
    local a = 2 + (c - 1) * (6 + 1)
    if ARGV[a] ~= '6' then
        return redis.error_reply('ratelimit: bad number of keys for call ' .. c)
    end
    do -- its locals end with it: a wide call checks many keys
        local text = ARGV[a + 1]
        if not specs_1[text] then
            local g, l, w, q, f, h = string.match(text or '', '^(%d),(%d+),(%d+),(%d+),(%d+),(%d+)$')
            if not g then
                return redis.error_reply('ratelimit: bad arguments for key ' .. ((c - 1) * 6 + 1))
            end
            g, l, w, q, f, h = tonumber(g), tonumber(l), tonumber(w), tonumber(q), tonumber(f), tonumber(h)
            if g ~= 1 or l < 1 or w < 1 or q > l or f > 15 or (f % 4 >= 2) ~= false or (f >= 8) ~= false
                or g == 1 and l > 16777215 then
                return redis.error_reply('ratelimit: bad arguments for key ' .. ((c - 1) * 6 + 1))
            end
            local eighth = min(ceil(w / 8), 16777215)
            specs_1[text] = {g, l, w, q, f, h, format('%d', w + eighth), l, 0, 0, 0, eighth}
        end
    end
    do -- its locals end with it: a wide call checks many keys
        local text = ARGV[a + 2]
        if not specs_1[text] then
            local g, l, w, q, f, h = string.match(text or '', '^(%d),(%d+),(%d+),(%d+),(%d+),(%d+)$')
            if not g then
                return redis.error_reply('ratelimit: bad arguments for key ' .. ((c - 1) * 6 + 2))
            end
            g, l, w, q, f, h = tonumber(g), tonumber(l), tonumber(w), tonumber(q), tonumber(f), tonumber(h)
            if g ~= 1 or l < 1 or w < 1 or q > l or f > 15 or (f % 4 >= 2) ~= false or (f >= 8) ~= false
                or g == 1 and l > 16777215 then
                return redis.error_reply('ratelimit: bad arguments for key ' .. ((c - 1) * 6 + 2))
            end
            local eighth = min(ceil(w / 8), 16777215)
            specs_1[text] = {g, l, w, q, f, h, format('%d', w + eighth), l, 0, 0, 0, eighth}
        end
    end
    do -- its locals end with it: a wide call checks many keys
        local text = ARGV[a + 3]
        if not specs_1[text] then
            local g, l, w, q, f, h = string.match(text or '', '^(%d),(%d+),(%d+),(%d+),(%d+),(%d+)$')
            if not g then
                return redis.error_reply('ratelimit: bad arguments for key ' .. ((c - 1) * 6 + 3))
            end
            g, l, w, q, f, h = tonumber(g), tonumber(l), tonumber(w), tonumber(q), tonumber(f), tonumber(h)
            if g ~= 1 or l < 1 or w < 1 or q > l or f > 15 or (f % 4 >= 2) ~= false or (f >= 8) ~= false
                or g == 1 and l > 16777215 then
                return redis.error_reply('ratelimit: bad arguments for key ' .. ((c - 1) * 6 + 3))
            end
            local eighth = min(ceil(w / 8), 16777215)
            specs_1[text] = {g, l, w, q, f, h, format('%d', w + eighth), l, 0, 0, 0, eighth}
        end
    end
    do -- its locals end with it: a wide call checks many keys
        local text = ARGV[a + 4]
        if not specs_1[text] then
            local g, l, w, q, f, h = string.match(text or '', '^(%d),(%d+),(%d+),(%d+),(%d+),(%d+)$')
            if not g then
                return redis.error_reply('ratelimit: bad arguments for key ' .. ((c - 1) * 6 + 4))
            end
            g, l, w, q, f, h = tonumber(g), tonumber(l), tonumber(w), tonumber(q), tonumber(f), tonumber(h)
            if g ~= 1 or l < 1 or w < 1 or q > l or f > 15 or (f % 4 >= 2) ~= false or (f >= 8) ~= false
                or g == 1 and l > 16777215 then
                return redis.error_reply('ratelimit: bad arguments for key ' .. ((c - 1) * 6 + 4))
            end
            local eighth = min(ceil(w / 8), 16777215)
            specs_1[text] = {g, l, w, q, f, h, format('%d', w + eighth), l, 0, 0, 0, eighth}
        end
    end
    do -- its locals end with it: a wide call checks many keys
        local text = ARGV[a + 5]
        if not specs_1[text] then
            local g, l, w, q, f, h = string.match(text or '', '^(%d),(%d+),(%d+),(%d+),(%d+),(%d+)$')
            if not g then
                return redis.error_reply('ratelimit: bad arguments for key ' .. ((c - 1) * 6 + 5))
            end
            g, l, w, q, f, h = tonumber(g), tonumber(l), tonumber(w), tonumber(q), tonumber(f), tonumber(h)
            if g ~= 1 or l < 1 or w < 1 or q > l or f > 15 or (f % 4 >= 2) ~= false or (f >= 8) ~= false
                or g == 1 and l > 16777215 then
                return redis.error_reply('ratelimit: bad arguments for key ' .. ((c - 1) * 6 + 5))
            end
            local eighth = min(ceil(w / 8), 16777215)
            specs_1[text] = {g, l, w, q, f, h, format('%d', w + eighth), l, 0, 0, 0, eighth}
        end
    end
    do -- its locals end with it: a wide call checks many keys
        local text = ARGV[a + 6]
        if not specs_1[text] then
            local g, l, w, q, f, h = string.match(text or '', '^(%d),(%d+),(%d+),(%d+),(%d+),(%d+)$')
            if not g then
                return redis.error_reply('ratelimit: bad arguments for key ' .. ((c - 1) * 6 + 6))
            end
            g, l, w, q, f, h = tonumber(g), tonumber(l), tonumber(w), tonumber(q), tonumber(f), tonumber(h)
            if g ~= 1 or l < 1 or w < 1 or q > l or f > 15 or (f % 4 >= 2) ~= false or (f >= 8) ~= false
                or g == 1 and l > 16777215 then
                return redis.error_reply('ratelimit: bad arguments for key ' .. ((c - 1) * 6 + 6))
            end
            local eighth = min(ceil(w / 8), 16777215)
            specs_1[text] = {g, l, w, q, f, h, format('%d', w + eighth), l, 0, 0, 0, eighth}
        end
    end
end
-- the format of up to 24 integers joined by commas (a call's answers are usually fewer)
local JOINED, JOINED_MAX = '%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d', 24
local COMMON = '%d,%d,%d,%d,%d,%d,%d,%d' -- a call's reply when each of its 6 answers is the common one
local replies = {}
local out = {0, 0, 0} -- the current call's answers (reused: a call's reply is made of the first m)
for c = 1, calls do
    local a, kb = 2 + (c - 1) * (6 + 1), (c - 1) * 6
    local admitted, held, capped = 1, nil, nil -- held: the time of the slot a refused waiting call holds
    local p1 = specs_1[ARGV[a + 1]]
    local kn1, cost1, flags1 = KEYS[kb + 1], p1[4], p1[5]
    local allowed1, remaining1, reset1, retry1
    local head1, now1, live1, oldest1, cap1, renew1 = 0, 0, 0, 0, 0, 0 -- renew1: when the expiry is renewed
    do
        local limit, window, cost, capacity = p1[2], p1[3], cost1, p1[8] -- capacity: the limit, or a share's budget
        local newest = 0
        if kn1 == kept and kept_cap >= capacity then
            head1, live1, newest, oldest1, cap1 = kept_head, kept_live, kept_newest, kept_oldest, kept_cap
            renew1 = kept_renew
        else
            if kept_dirty then
        -- the kept ring written: its entries, its header, and its expiry once the admission's eighth has passed
        do
            local due = kept_newest >= kept_renew
            kept_renew = due and kept_newest + kept_p[12] or kept_renew
            settle(kept, HEAD, kept_cap, run_first, run_count, run_now,
                spack(HEADER, kept_head, kept_live, kept_newest, kept_oldest, kept_cap, kept_renew - kept_newest),
                due and format('%d', kept_newest - now_ms + kept_p[3] + kept_p[12]))
        end
            end
            kept, kept_dirty, run_count = nil, false, 0
            local h = call('GETRANGE', kn1, '0', HEAD_LAST)
            if #h >= HEAD then
                head1, live1, newest, oldest1, cap1, renew1 = sunpack(HEADER, h)
                renew1 = newest + renew1
            end
        end
        if cap1 == 0 then
            cap1 = capacity -- a new ring
        elseif cap1 < capacity and cost > 0 then
        -- A plan's quota grew beyond the ring's capacity: the ring is rewritten with the new capacity, its live
        -- entries kept in time order from slot 0, so that a caller keeps what was counted and gets the difference
        -- at once. (A quota that shrinks keeps the larger ring: its entries still count, and the next growth finds
        -- them.) Rare (an upgrade), so it may read the live entries. A read (cost 0) reads the ring as it is.
        if live1 == 0 then
            call('DEL', kn1)
            head1, newest, oldest1 = 0, 0, 0
        else
            -- the live entries, oldest first, as one string (missing slots as zeros)
            local from = (head1 + cap1 - live1) % cap1 -- the slot of the oldest of them
            local entries
            if from + live1 <= cap1 then
                entries = call('GETRANGE', kn1, HEAD + from * SLOT, HEAD + (from + live1) * SLOT - 1)
            else
                entries = call('GETRANGE', kn1, HEAD + from * SLOT, HEAD + cap1 * SLOT - 1)
                    .. call('GETRANGE', kn1, HEAD, HEAD + (from + live1 - cap1) * SLOT - 1)
            end
            if #entries < live1 * SLOT then
                entries = entries .. rep('\0', live1 * SLOT - #entries)
            end
            head1, oldest1 = live1 % capacity, sunpack('>I6', entries)
            call('SET', kn1, spack(HEADER, head1, live1, newest, oldest1, capacity, 0) .. entries, 'PX',
                format('%d', max(newest, now_ms) - now_ms + window))
            renew1 = 0 -- renewed at its next admission
        end
            cap1 = capacity
        end
        if live1 == 0 then
            newest, oldest1 = 0, 0
        end
        -- entries are dated at least the newest (a clock that steps back, a slot held ahead), so the ring stays in time
        -- order; what is live is counted at Redis's time, so that an entry dated ahead counts from now on
        now1 = max(now_ms, newest)
        local leaving = live1 > 0 and now_ms - oldest1 >= window
        if not entry and (leaving or live1 + cost > limit) then
            entry, still_live, write, settle = ring_entries(SLOT)
        end
        if kn1 == kept and run_count > 0 and (leaving or live1 + cost > limit) then
            write(kept, HEAD, cap1, run_first, run_count, spack('>I6', run_now)) -- before entries are read
            run_count = 0
        end
        if leaving then
            live1, oldest1 = still_live(kn1, HEAD, head1, cap1, live1, oldest1, window, now_ms)
        end
        local reset = live1 > 0 and newest + window - now_ms or 0
        if cost == 0 and live1 <= limit then -- a read: reset when the newest entry leaves
            allowed1, remaining1, reset1, retry1 = 1, limit - live1, reset, 0
        elseif live1 + cost > limit then -- (a read too, of a window counted past a quota that shrank)
            -- the oldest live entries must leave until the cost fits: the last of them is the (live + cost - limit)-th
            -- oldest live entry, at logical index cap - limit + cost - 1; counted from now_ms, the time the caller sees
            local needed = entry(kn1, HEAD, head1, cap1, cap1 - limit + cost - 1)
            allowed1, remaining1, reset1, retry1 = 0, limit - live1, reset, needed + window - now_ms
        else
            allowed1, remaining1, reset1, retry1 = 1, limit - live1 - cost, window, 0
        end
    end
    if allowed1 == 0 and flags1 % 2 == 0 then -- refused by a key that is not a shadow
        admitted = 0
    end
    local p2 = specs_1[ARGV[a + 2]]
    local kn2, cost2, flags2 = KEYS[kb + 2], p2[4], p2[5]
    local allowed2, remaining2, reset2, retry2
    local head2, now2, live2, oldest2, cap2, renew2 = 0, 0, 0, 0, 0, 0 -- renew2: when the expiry is renewed
    do
        local limit, window, cost, capacity = p2[2], p2[3], cost2, p2[8] -- capacity: the limit, or a share's budget
        local newest = 0
        if kn2 == kept and kept_cap >= capacity then
            head2, live2, newest, oldest2, cap2 = kept_head, kept_live, kept_newest, kept_oldest, kept_cap
            renew2 = kept_renew
        else
            if kept_dirty then
        -- the kept ring written: its entries, its header, and its expiry once the admission's eighth has passed
        do
            local due = kept_newest >= kept_renew
            kept_renew = due and kept_newest + kept_p[12] or kept_renew
            settle(kept, HEAD, kept_cap, run_first, run_count, run_now,
                spack(HEADER, kept_head, kept_live, kept_newest, kept_oldest, kept_cap, kept_renew - kept_newest),
                due and format('%d', kept_newest - now_ms + kept_p[3] + kept_p[12]))
        end
            end
            kept, kept_dirty, run_count = nil, false, 0
            local h = call('GETRANGE', kn2, '0', HEAD_LAST)
            if #h >= HEAD then
                head2, live2, newest, oldest2, cap2, renew2 = sunpack(HEADER, h)
                renew2 = newest + renew2
            end
        end
        if cap2 == 0 then
            cap2 = capacity -- a new ring
        elseif cap2 < capacity and cost > 0 then
        -- A plan's quota grew beyond the ring's capacity: the ring is rewritten with the new capacity, its live
        -- entries kept in time order from slot 0, so that a caller keeps what was counted and gets the difference
        -- at once. (A quota that shrinks keeps the larger ring: its entries still count, and the next growth finds
        -- them.) Rare (an upgrade), so it may read the live entries. A read (cost 0) reads the ring as it is.
        if live2 == 0 then
            call('DEL', kn2)
            head2, newest, oldest2 = 0, 0, 0
        else
            -- the live entries, oldest first, as one string (missing slots as zeros)
            local from = (head2 + cap2 - live2) % cap2 -- the slot of the oldest of them
            local entries
            if from + live2 <= cap2 then
                entries = call('GETRANGE', kn2, HEAD + from * SLOT, HEAD + (from + live2) * SLOT - 1)
            else
                entries = call('GETRANGE', kn2, HEAD + from * SLOT, HEAD + cap2 * SLOT - 1)
                    .. call('GETRANGE', kn2, HEAD, HEAD + (from + live2 - cap2) * SLOT - 1)
            end
            if #entries < live2 * SLOT then
                entries = entries .. rep('\0', live2 * SLOT - #entries)
            end
            head2, oldest2 = live2 % capacity, sunpack('>I6', entries)
            call('SET', kn2, spack(HEADER, head2, live2, newest, oldest2, capacity, 0) .. entries, 'PX',
                format('%d', max(newest, now_ms) - now_ms + window))
            renew2 = 0 -- renewed at its next admission
        end
            cap2 = capacity
        end
        if live2 == 0 then
            newest, oldest2 = 0, 0
        end
        -- entries are dated at least the newest (a clock that steps back, a slot held ahead), so the ring stays in time
        -- order; what is live is counted at Redis's time, so that an entry dated ahead counts from now on
        now2 = max(now_ms, newest)
        local leaving = live2 > 0 and now_ms - oldest2 >= window
        if not entry and (leaving or live2 + cost > limit) then
            entry, still_live, write, settle = ring_entries(SLOT)
        end
        if kn2 == kept and run_count > 0 and (leaving or live2 + cost > limit) then
            write(kept, HEAD, cap2, run_first, run_count, spack('>I6', run_now)) -- before entries are read
            run_count = 0
        end
        if leaving then
            live2, oldest2 = still_live(kn2, HEAD, head2, cap2, live2, oldest2, window, now_ms)
        end
        local reset = live2 > 0 and newest + window - now_ms or 0
        if cost == 0 and live2 <= limit then -- a read: reset when the newest entry leaves
            allowed2, remaining2, reset2, retry2 = 1, limit - live2, reset, 0
        elseif live2 + cost > limit then -- (a read too, of a window counted past a quota that shrank)
            -- the oldest live entries must leave until the cost fits: the last of them is the (live + cost - limit)-th
            -- oldest live entry, at logical index cap - limit + cost - 1; counted from now_ms, the time the caller sees
            local needed = entry(kn2, HEAD, head2, cap2, cap2 - limit + cost - 1)
            allowed2, remaining2, reset2, retry2 = 0, limit - live2, reset, needed + window - now_ms
        else
            allowed2, remaining2, reset2, retry2 = 1, limit - live2 - cost, window, 0
        end
    end
    if allowed2 == 0 and flags2 % 2 == 0 then -- refused by a key that is not a shadow
        admitted = 0
    end
    local p3 = specs_1[ARGV[a + 3]]
    local kn3, cost3, flags3 = KEYS[kb + 3], p3[4], p3[5]
    local allowed3, remaining3, reset3, retry3
    local head3, now3, live3, oldest3, cap3, renew3 = 0, 0, 0, 0, 0, 0 -- renew3: when the expiry is renewed
    do
        local limit, window, cost, capacity = p3[2], p3[3], cost3, p3[8] -- capacity: the limit, or a share's budget
        local newest = 0
        if kn3 == kept and kept_cap >= capacity then
            head3, live3, newest, oldest3, cap3 = kept_head, kept_live, kept_newest, kept_oldest, kept_cap
            renew3 = kept_renew
        else
            if kept_dirty then
        -- the kept ring written: its entries, its header, and its expiry once the admission's eighth has passed
        do
            local due = kept_newest >= kept_renew
            kept_renew = due and kept_newest + kept_p[12] or kept_renew
            settle(kept, HEAD, kept_cap, run_first, run_count, run_now,
                spack(HEADER, kept_head, kept_live, kept_newest, kept_oldest, kept_cap, kept_renew - kept_newest),
                due and format('%d', kept_newest - now_ms + kept_p[3] + kept_p[12]))
        end
            end
            kept, kept_dirty, run_count = nil, false, 0
            local h = call('GETRANGE', kn3, '0', HEAD_LAST)
            if #h >= HEAD then
                head3, live3, newest, oldest3, cap3, renew3 = sunpack(HEADER, h)
                renew3 = newest + renew3
            end
        end
        if cap3 == 0 then
            cap3 = capacity -- a new ring
        elseif cap3 < capacity and cost > 0 then
        -- A plan's quota grew beyond the ring's capacity: the ring is rewritten with the new capacity, its live
        -- entries kept in time order from slot 0, so that a caller keeps what was counted and gets the difference
        -- at once. (A quota that shrinks keeps the larger ring: its entries still count, and the next growth finds
        -- them.) Rare (an upgrade), so it may read the live entries. A read (cost 0) reads the ring as it is.
        if live3 == 0 then
            call('DEL', kn3)
            head3, newest, oldest3 = 0, 0, 0
        else
            -- the live entries, oldest first, as one string (missing slots as zeros)
            local from = (head3 + cap3 - live3) % cap3 -- the slot of the oldest of them
            local entries
            if from + live3 <= cap3 then
                entries = call('GETRANGE', kn3, HEAD + from * SLOT, HEAD + (from + live3) * SLOT - 1)
            else
                entries = call('GETRANGE', kn3, HEAD + from * SLOT, HEAD + cap3 * SLOT - 1)
                    .. call('GETRANGE', kn3, HEAD, HEAD + (from + live3 - cap3) * SLOT - 1)
            end
            if #entries < live3 * SLOT then
                entries = entries .. rep('\0', live3 * SLOT - #entries)
            end
            head3, oldest3 = live3 % capacity, sunpack('>I6', entries)
            call('SET', kn3, spack(HEADER, head3, live3, newest, oldest3, capacity, 0) .. entries, 'PX',
                format('%d', max(newest, now_ms) - now_ms + window))
            renew3 = 0 -- renewed at its next admission
        end
            cap3 = capacity
        end
        if live3 == 0 then
            newest, oldest3 = 0, 0
        end
        -- entries are dated at least the newest (a clock that steps back, a slot held ahead), so the ring stays in time
        -- order; what is live is counted at Redis's time, so that an entry dated ahead counts from now on
        now3 = max(now_ms, newest)
        local leaving = live3 > 0 and now_ms - oldest3 >= window
        if not entry and (leaving or live3 + cost > limit) then
            entry, still_live, write, settle = ring_entries(SLOT)
        end
        if kn3 == kept and run_count > 0 and (leaving or live3 + cost > limit) then
            write(kept, HEAD, cap3, run_first, run_count, spack('>I6', run_now)) -- before entries are read
            run_count = 0
        end
        if leaving then
            live3, oldest3 = still_live(kn3, HEAD, head3, cap3, live3, oldest3, window, now_ms)
        end
        local reset = live3 > 0 and newest + window - now_ms or 0
        if cost == 0 and live3 <= limit then -- a read: reset when the newest entry leaves
            allowed3, remaining3, reset3, retry3 = 1, limit - live3, reset, 0
        elseif live3 + cost > limit then -- (a read too, of a window counted past a quota that shrank)
            -- the oldest live entries must leave until the cost fits: the last of them is the (live + cost - limit)-th
            -- oldest live entry, at logical index cap - limit + cost - 1; counted from now_ms, the time the caller sees
            local needed = entry(kn3, HEAD, head3, cap3, cap3 - limit + cost - 1)
            allowed3, remaining3, reset3, retry3 = 0, limit - live3, reset, needed + window - now_ms
        else
            allowed3, remaining3, reset3, retry3 = 1, limit - live3 - cost, window, 0
        end
    end
    if allowed3 == 0 and flags3 % 2 == 0 then -- refused by a key that is not a shadow
        admitted = 0
    end
    local p4 = specs_1[ARGV[a + 4]]
    local kn4, cost4, flags4 = KEYS[kb + 4], p4[4], p4[5]
    local allowed4, remaining4, reset4, retry4
    local head4, now4, live4, oldest4, cap4, renew4 = 0, 0, 0, 0, 0, 0 -- renew4: when the expiry is renewed
    do
        local limit, window, cost, capacity = p4[2], p4[3], cost4, p4[8] -- capacity: the limit, or a share's budget
        local newest = 0
        if kn4 == kept and kept_cap >= capacity then
            head4, live4, newest, oldest4, cap4 = kept_head, kept_live, kept_newest, kept_oldest, kept_cap
            renew4 = kept_renew
        else
            if kept_dirty then
        -- the kept ring written: its entries, its header, and its expiry once the admission's eighth has passed
        do
            local due = kept_newest >= kept_renew
            kept_renew = due and kept_newest + kept_p[12] or kept_renew
            settle(kept, HEAD, kept_cap, run_first, run_count, run_now,
                spack(HEADER, kept_head, kept_live, kept_newest, kept_oldest, kept_cap, kept_renew - kept_newest),
                due and format('%d', kept_newest - now_ms + kept_p[3] + kept_p[12]))
        end
            end
            kept, kept_dirty, run_count = nil, false, 0
            local h = call('GETRANGE', kn4, '0', HEAD_LAST)
            if #h >= HEAD then
                head4, live4, newest, oldest4, cap4, renew4 = sunpack(HEADER, h)
                renew4 = newest + renew4
            end
        end
        if cap4 == 0 then
            cap4 = capacity -- a new ring
        elseif cap4 < capacity and cost > 0 then
        -- A plan's quota grew beyond the ring's capacity: the ring is rewritten with the new capacity, its live
        -- entries kept in time order from slot 0, so that a caller keeps what was counted and gets the difference
        -- at once. (A quota that shrinks keeps the larger ring: its entries still count, and the next growth finds
        -- them.) Rare (an upgrade), so it may read the live entries. A read (cost 0) reads the ring as it is.
        if live4 == 0 then
            call('DEL', kn4)
            head4, newest, oldest4 = 0, 0, 0
        else
            -- the live entries, oldest first, as one string (missing slots as zeros)
            local from = (head4 + cap4 - live4) % cap4 -- the slot of the oldest of them
            local entries
            if from + live4 <= cap4 then
                entries = call('GETRANGE', kn4, HEAD + from * SLOT, HEAD + (from + live4) * SLOT - 1)
            else
                entries = call('GETRANGE', kn4, HEAD + from * SLOT, HEAD + cap4 * SLOT - 1)
                    .. call('GETRANGE', kn4, HEAD, HEAD + (from + live4 - cap4) * SLOT - 1)
            end
            if #entries < live4 * SLOT then
                entries = entries .. rep('\0', live4 * SLOT - #entries)
            end
            head4, oldest4 = live4 % capacity, sunpack('>I6', entries)
            call('SET', kn4, spack(HEADER, head4, live4, newest, oldest4, capacity, 0) .. entries, 'PX',
                format('%d', max(newest, now_ms) - now_ms + window))
            renew4 = 0 -- renewed at its next admission
        end
            cap4 = capacity
        end
        if live4 == 0 then
            newest, oldest4 = 0, 0
        end
        -- entries are dated at least the newest (a clock that steps back, a slot held ahead), so the ring stays in time
        -- order; what is live is counted at Redis's time, so that an entry dated ahead counts from now on
        now4 = max(now_ms, newest)
        local leaving = live4 > 0 and now_ms - oldest4 >= window
        if not entry and (leaving or live4 + cost > limit) then
            entry, still_live, write, settle = ring_entries(SLOT)
        end
        if kn4 == kept and run_count > 0 and (leaving or live4 + cost > limit) then
            write(kept, HEAD, cap4, run_first, run_count, spack('>I6', run_now)) -- before entries are read
            run_count = 0
        end
        if leaving then
            live4, oldest4 = still_live(kn4, HEAD, head4, cap4, live4, oldest4, window, now_ms)
        end
        local reset = live4 > 0 and newest + window - now_ms or 0
        if cost == 0 and live4 <= limit then -- a read: reset when the newest entry leaves
            allowed4, remaining4, reset4, retry4 = 1, limit - live4, reset, 0
        elseif live4 + cost > limit then -- (a read too, of a window counted past a quota that shrank)
            -- the oldest live entries must leave until the cost fits: the last of them is the (live + cost - limit)-th
            -- oldest live entry, at logical index cap - limit + cost - 1; counted from now_ms, the time the caller sees
            local needed = entry(kn4, HEAD, head4, cap4, cap4 - limit + cost - 1)
            allowed4, remaining4, reset4, retry4 = 0, limit - live4, reset, needed + window - now_ms
        else
            allowed4, remaining4, reset4, retry4 = 1, limit - live4 - cost, window, 0
        end
    end
    if allowed4 == 0 and flags4 % 2 == 0 then -- refused by a key that is not a shadow
        admitted = 0
    end
    local p5 = specs_1[ARGV[a + 5]]
    local kn5, cost5, flags5 = KEYS[kb + 5], p5[4], p5[5]
    local allowed5, remaining5, reset5, retry5
    local head5, now5, live5, oldest5, cap5, renew5 = 0, 0, 0, 0, 0, 0 -- renew5: when the expiry is renewed
    do
        local limit, window, cost, capacity = p5[2], p5[3], cost5, p5[8] -- capacity: the limit, or a share's budget
        local newest = 0
        if kn5 == kept and kept_cap >= capacity then
            head5, live5, newest, oldest5, cap5 = kept_head, kept_live, kept_newest, kept_oldest, kept_cap
            renew5 = kept_renew
        else
            if kept_dirty then
        -- the kept ring written: its entries, its header, and its expiry once the admission's eighth has passed
        do
            local due = kept_newest >= kept_renew
            kept_renew = due and kept_newest + kept_p[12] or kept_renew
            settle(kept, HEAD, kept_cap, run_first, run_count, run_now,
                spack(HEADER, kept_head, kept_live, kept_newest, kept_oldest, kept_cap, kept_renew - kept_newest),
                due and format('%d', kept_newest - now_ms + kept_p[3] + kept_p[12]))
        end
            end
            kept, kept_dirty, run_count = nil, false, 0
            local h = call('GETRANGE', kn5, '0', HEAD_LAST)
            if #h >= HEAD then
                head5, live5, newest, oldest5, cap5, renew5 = sunpack(HEADER, h)
                renew5 = newest + renew5
            end
        end
        if cap5 == 0 then
            cap5 = capacity -- a new ring
        elseif cap5 < capacity and cost > 0 then
        -- A plan's quota grew beyond the ring's capacity: the ring is rewritten with the new capacity, its live
        -- entries kept in time order from slot 0, so that a caller keeps what was counted and gets the difference
        -- at once. (A quota that shrinks keeps the larger ring: its entries still count, and the next growth finds
        -- them.) Rare (an upgrade), so it may read the live entries. A read (cost 0) reads the ring as it is.
        if live5 == 0 then
            call('DEL', kn5)
            head5, newest, oldest5 = 0, 0, 0
        else
            -- the live entries, oldest first, as one string (missing slots as zeros)
            local from = (head5 + cap5 - live5) % cap5 -- the slot of the oldest of them
            local entries
            if from + live5 <= cap5 then
                entries = call('GETRANGE', kn5, HEAD + from * SLOT, HEAD + (from + live5) * SLOT - 1)
            else
                entries = call('GETRANGE', kn5, HEAD + from * SLOT, HEAD + cap5 * SLOT - 1)
                    .. call('GETRANGE', kn5, HEAD, HEAD + (from + live5 - cap5) * SLOT - 1)
            end
            if #entries < live5 * SLOT then
                entries = entries .. rep('\0', live5 * SLOT - #entries)
            end
            head5, oldest5 = live5 % capacity, sunpack('>I6', entries)
            call('SET', kn5, spack(HEADER, head5, live5, newest, oldest5, capacity, 0) .. entries, 'PX',
                format('%d', max(newest, now_ms) - now_ms + window))
            renew5 = 0 -- renewed at its next admission
        end
            cap5 = capacity
        end
        if live5 == 0 then
            newest, oldest5 = 0, 0
        end
        -- entries are dated at least the newest (a clock that steps back, a slot held ahead), so the ring stays in time
        -- order; what is live is counted at Redis's time, so that an entry dated ahead counts from now on
        now5 = max(now_ms, newest)
        local leaving = live5 > 0 and now_ms - oldest5 >= window
        if not entry and (leaving or live5 + cost > limit) then
            entry, still_live, write, settle = ring_entries(SLOT)
        end
        if kn5 == kept and run_count > 0 and (leaving or live5 + cost > limit) then
            write(kept, HEAD, cap5, run_first, run_count, spack('>I6', run_now)) -- before entries are read
            run_count = 0
        end
        if leaving then
            live5, oldest5 = still_live(kn5, HEAD, head5, cap5, live5, oldest5, window, now_ms)
        end
        local reset = live5 > 0 and newest + window - now_ms or 0
        if cost == 0 and live5 <= limit then -- a read: reset when the newest entry leaves
            allowed5, remaining5, reset5, retry5 = 1, limit - live5, reset, 0
        elseif live5 + cost > limit then -- (a read too, of a window counted past a quota that shrank)
            -- the oldest live entries must leave until the cost fits: the last of them is the (live + cost - limit)-th
            -- oldest live entry, at logical index cap - limit + cost - 1; counted from now_ms, the time the caller sees
            local needed = entry(kn5, HEAD, head5, cap5, cap5 - limit + cost - 1)
            allowed5, remaining5, reset5, retry5 = 0, limit - live5, reset, needed + window - now_ms
        else
            allowed5, remaining5, reset5, retry5 = 1, limit - live5 - cost, window, 0
        end
    end
    if allowed5 == 0 and flags5 % 2 == 0 then -- refused by a key that is not a shadow
        admitted = 0
    end
    local p6 = specs_1[ARGV[a + 6]]
    local kn6, cost6, flags6 = KEYS[kb + 6], p6[4], p6[5]
    local allowed6, remaining6, reset6, retry6
    local head6, now6, live6, oldest6, cap6, renew6 = 0, 0, 0, 0, 0, 0 -- renew6: when the expiry is renewed
    do
        local limit, window, cost, capacity = p6[2], p6[3], cost6, p6[8] -- capacity: the limit, or a share's budget
        local newest = 0
        if kn6 == kept and kept_cap >= capacity then
            head6, live6, newest, oldest6, cap6 = kept_head, kept_live, kept_newest, kept_oldest, kept_cap
            renew6 = kept_renew
        else
            if kept_dirty then
        -- the kept ring written: its entries, its header, and its expiry once the admission's eighth has passed
        do
            local due = kept_newest >= kept_renew
            kept_renew = due and kept_newest + kept_p[12] or kept_renew
            settle(kept, HEAD, kept_cap, run_first, run_count, run_now,
                spack(HEADER, kept_head, kept_live, kept_newest, kept_oldest, kept_cap, kept_renew - kept_newest),
                due and format('%d', kept_newest - now_ms + kept_p[3] + kept_p[12]))
        end
            end
            kept, kept_dirty, run_count = nil, false, 0
            local h = call('GETRANGE', kn6, '0', HEAD_LAST)
            if #h >= HEAD then
                head6, live6, newest, oldest6, cap6, renew6 = sunpack(HEADER, h)
                renew6 = newest + renew6
            end
        end
        if cap6 == 0 then
            cap6 = capacity -- a new ring
        elseif cap6 < capacity and cost > 0 then
        -- A plan's quota grew beyond the ring's capacity: the ring is rewritten with the new capacity, its live
        -- entries kept in time order from slot 0, so that a caller keeps what was counted and gets the difference
        -- at once. (A quota that shrinks keeps the larger ring: its entries still count, and the next growth finds
        -- them.) Rare (an upgrade), so it may read the live entries. A read (cost 0) reads the ring as it is.
        if live6 == 0 then
            call('DEL', kn6)
            head6, newest, oldest6 = 0, 0, 0
        else
            -- the live entries, oldest first, as one string (missing slots as zeros)
            local from = (head6 + cap6 - live6) % cap6 -- the slot of the oldest of them
            local entries
            if from + live6 <= cap6 then
                entries = call('GETRANGE', kn6, HEAD + from * SLOT, HEAD + (from + live6) * SLOT - 1)
            else
                entries = call('GETRANGE', kn6, HEAD + from * SLOT, HEAD + cap6 * SLOT - 1)
                    .. call('GETRANGE', kn6, HEAD, HEAD + (from + live6 - cap6) * SLOT - 1)
            end
            if #entries < live6 * SLOT then
                entries = entries .. rep('\0', live6 * SLOT - #entries)
            end
            head6, oldest6 = live6 % capacity, sunpack('>I6', entries)
            call('SET', kn6, spack(HEADER, head6, live6, newest, oldest6, capacity, 0) .. entries, 'PX',
                format('%d', max(newest, now_ms) - now_ms + window))
            renew6 = 0 -- renewed at its next admission
        end
            cap6 = capacity
        end
        if live6 == 0 then
            newest, oldest6 = 0, 0
        end
        -- entries are dated at least the newest (a clock that steps back, a slot held ahead), so the ring stays in time
        -- order; what is live is counted at Redis's time, so that an entry dated ahead counts from now on
        now6 = max(now_ms, newest)
        local leaving = live6 > 0 and now_ms - oldest6 >= window
        if not entry and (leaving or live6 + cost > limit) then
            entry, still_live, write, settle = ring_entries(SLOT)
        end
        if kn6 == kept and run_count > 0 and (leaving or live6 + cost > limit) then
            write(kept, HEAD, cap6, run_first, run_count, spack('>I6', run_now)) -- before entries are read
            run_count = 0
        end
        if leaving then
            live6, oldest6 = still_live(kn6, HEAD, head6, cap6, live6, oldest6, window, now_ms)
        end
        local reset = live6 > 0 and newest + window - now_ms or 0
        if cost == 0 and live6 <= limit then -- a read: reset when the newest entry leaves
            allowed6, remaining6, reset6, retry6 = 1, limit - live6, reset, 0
        elseif live6 + cost > limit then -- (a read too, of a window counted past a quota that shrank)
            -- the oldest live entries must leave until the cost fits: the last of them is the (live + cost - limit)-th
            -- oldest live entry, at logical index cap - limit + cost - 1; counted from now_ms, the time the caller sees
            local needed = entry(kn6, HEAD, head6, cap6, cap6 - limit + cost - 1)
            allowed6, remaining6, reset6, retry6 = 0, limit - live6, reset, needed + window - now_ms
        else
            allowed6, remaining6, reset6, retry6 = 1, limit - live6 - cost, window, 0
        end
    end
    if allowed6 == 0 and flags6 % 2 == 0 then -- refused by a key that is not a shadow
        admitted = 0
    end
    -- the call is admitted (1), or holds a slot (2): each key with room takes its cost (unless only checked)
    -- taken unless only checked; a call that holds a slot takes it from each enforced key, with room now or not
    local took1 = (allowed1 == 1 and admitted >= 1 or admitted == 2 and flags1 % 2 == 0) and flags1 % 8 < 4
    if took1 and cost1 > 0 and held then
        -- The call holds a slot at `held` (decide.lua): the cost is taken now, dated then, in the place of the oldest
        -- entries. Where those are still live, each is replaced by one at least a window later (the slot is never
        -- before the earliest time the cost fits), so no count falls: the ring counts the slot from now on, and as an
        -- admission from its time. Written at once; a ring kept for the batch is written first and read again after.
        if kept_dirty then
        -- the kept ring written: its entries, its header, and its expiry once the admission's eighth has passed
        do
            local due = kept_newest >= kept_renew
            kept_renew = due and kept_newest + kept_p[12] or kept_renew
            settle(kept, HEAD, kept_cap, run_first, run_count, run_now,
                spack(HEADER, kept_head, kept_live, kept_newest, kept_oldest, kept_cap, kept_renew - kept_newest),
                due and format('%d', kept_newest - now_ms + kept_p[3] + kept_p[12]))
        end
        end
        kept, kept_dirty, run_count = nil, false, 0
        if not entry then
            entry, still_live, write, settle = ring_entries(SLOT)
        end
        local head, live, oldest, cap, cost = head1, live1, oldest1, cap1, cost1
        if live + cost > cap then -- live entries are replaced: the oldest live one is then the one after them
            oldest, live = cost < cap and entry(kn1, HEAD, head, cap, cost) or held, cap
        else
            oldest, live = live == 0 and held or oldest, live + cost
        end
        write(kn1, HEAD, cap, head, cost, spack('>I6', held))
        call('SETRANGE', kn1, '0', spack(HEADER, (head + cost) % cap, live, held, oldest, cap, p1[12]))
        call('PEXPIRE', kn1, format('%d', held - now_ms + p1[3] + p1[12])) -- renewed: ring.lua
    elseif took1 and cost1 > 0 then
        local head, now, live, oldest, cap, cost = head1, now1, live1, oldest1, cap1, cost1
        if kn1 == kept then
            -- checked from the kept header: the entries join those kept, which they follow in the ring at the same
            -- time (else those are written first); the header and expiry wait
            if run_count > 0 and run_now == now and (run_first + run_count) % cap == head and run_count + cost <= cap then
                run_count = run_count + cost
            else
                if run_count > 0 then
                    write(kept, HEAD, cap, run_first, run_count, spack('>I6', run_now))
                end
                if not entry then
                    entry, still_live, write, settle = ring_entries(SLOT)
                end
                run_first, run_count, run_now = head, cost, now
            end
            kept_dirty = true
        else
            -- the ring's first admission in this script call (a lone decision's only one): written at once
            local stamp = now == now_ms and now_stamp or spack('>I6', now)
            local fits = min(cost, cap - head)
            call('SETRANGE', kn1, format('%d', HEAD + head * SLOT), fits == 1 and stamp or rep(stamp, fits))
            if cost > fits then
                call('SETRANGE', kn1, format('%d', HEAD), rep(stamp, cost - fits))
            end
            -- the expiry is renewed once an eighth of the window has passed since it was (ring.lua): to a window and
            -- an eighth past the newest entry, which a slot held puts ahead of Redis's time
            local due = now >= renew1
            renew1 = due and now + p1[12] or renew1
            call('SETRANGE', kn1, '0', spack(HEADER, (head + cost) % cap, live + cost, now, live == 0 and now or oldest,
                cap, renew1 - now))
            if due then
                call('PEXPIRE', kn1, now == now_ms and p1[7] or format('%d', now - now_ms + p1[3] + p1[12]))
            end
            kept, kept_dirty, run_count = kn1, false, 0
        end
        kept_head, kept_live, kept_newest = (head + cost) % cap, live + cost, now
        kept_oldest, kept_cap, kept_renew, kept_p = live == 0 and now or oldest, cap, renew1, p1
    end
    -- taken unless only checked; a call that holds a slot takes it from each enforced key, with room now or not
    local took2 = (allowed2 == 1 and admitted >= 1 or admitted == 2 and flags2 % 2 == 0) and flags2 % 8 < 4
    if took2 and cost2 > 0 and held then
        -- The call holds a slot at `held` (decide.lua): the cost is taken now, dated then, in the place of the oldest
        -- entries. Where those are still live, each is replaced by one at least a window later (the slot is never
        -- before the earliest time the cost fits), so no count falls: the ring counts the slot from now on, and as an
        -- admission from its time. Written at once; a ring kept for the batch is written first and read again after.
        if kept_dirty then
        -- the kept ring written: its entries, its header, and its expiry once the admission's eighth has passed
        do
            local due = kept_newest >= kept_renew
            kept_renew = due and kept_newest + kept_p[12] or kept_renew
            settle(kept, HEAD, kept_cap, run_first, run_count, run_now,
                spack(HEADER, kept_head, kept_live, kept_newest, kept_oldest, kept_cap, kept_renew - kept_newest),
                due and format('%d', kept_newest - now_ms + kept_p[3] + kept_p[12]))
        end
        end
        kept, kept_dirty, run_count = nil, false, 0
        if not entry then
            entry, still_live, write, settle = ring_entries(SLOT)
        end
        local head, live, oldest, cap, cost = head2, live2, oldest2, cap2, cost2
        if live + cost > cap then -- live entries are replaced: the oldest live one is then the one after them
            oldest, live = cost < cap and entry(kn2, HEAD, head, cap, cost) or held, cap
        else
            oldest, live = live == 0 and held or oldest, live + cost
        end
        write(kn2, HEAD, cap, head, cost, spack('>I6', held))
        call('SETRANGE', kn2, '0', spack(HEADER, (head + cost) % cap, live, held, oldest, cap, p2[12]))
        call('PEXPIRE', kn2, format('%d', held - now_ms + p2[3] + p2[12])) -- renewed: ring.lua
    elseif took2 and cost2 > 0 then
        local head, now, live, oldest, cap, cost = head2, now2, live2, oldest2, cap2, cost2
        if kn2 == kept then
            -- checked from the kept header: the entries join those kept, which they follow in the ring at the same
            -- time (else those are written first); the header and expiry wait
            if run_count > 0 and run_now == now and (run_first + run_count) % cap == head and run_count + cost <= cap then
                run_count = run_count + cost
            else
                if run_count > 0 then
                    write(kept, HEAD, cap, run_first, run_count, spack('>I6', run_now))
                end
                if not entry then
                    entry, still_live, write, settle = ring_entries(SLOT)
                end
                run_first, run_count, run_now = head, cost, now
            end
            kept_dirty = true
        else
            -- the ring's first admission in this script call (a lone decision's only one): written at once
            local stamp = now == now_ms and now_stamp or spack('>I6', now)
            local fits = min(cost, cap - head)
            call('SETRANGE', kn2, format('%d', HEAD + head * SLOT), fits == 1 and stamp or rep(stamp, fits))
            if cost > fits then
                call('SETRANGE', kn2, format('%d', HEAD), rep(stamp, cost - fits))
            end
            -- the expiry is renewed once an eighth of the window has passed since it was (ring.lua): to a window and
            -- an eighth past the newest entry, which a slot held puts ahead of Redis's time
            local due = now >= renew2
            renew2 = due and now + p2[12] or renew2
            call('SETRANGE', kn2, '0', spack(HEADER, (head + cost) % cap, live + cost, now, live == 0 and now or oldest,
                cap, renew2 - now))
            if due then
                call('PEXPIRE', kn2, now == now_ms and p2[7] or format('%d', now - now_ms + p2[3] + p2[12]))
            end
            kept, kept_dirty, run_count = kn2, false, 0
        end
        kept_head, kept_live, kept_newest = (head + cost) % cap, live + cost, now
        kept_oldest, kept_cap, kept_renew, kept_p = live == 0 and now or oldest, cap, renew2, p2
    end
    -- taken unless only checked; a call that holds a slot takes it from each enforced key, with room now or not
    local took3 = (allowed3 == 1 and admitted >= 1 or admitted == 2 and flags3 % 2 == 0) and flags3 % 8 < 4
    if took3 and cost3 > 0 and held then
        -- The call holds a slot at `held` (decide.lua): the cost is taken now, dated then, in the place of the oldest
        -- entries. Where those are still live, each is replaced by one at least a window later (the slot is never
        -- before the earliest time the cost fits), so no count falls: the ring counts the slot from now on, and as an
        -- admission from its time. Written at once; a ring kept for the batch is written first and read again after.
        if kept_dirty then
        -- the kept ring written: its entries, its header, and its expiry once the admission's eighth has passed
        do
            local due = kept_newest >= kept_renew
            kept_renew = due and kept_newest + kept_p[12] or kept_renew
            settle(kept, HEAD, kept_cap, run_first, run_count, run_now,
                spack(HEADER, kept_head, kept_live, kept_newest, kept_oldest, kept_cap, kept_renew - kept_newest),
                due and format('%d', kept_newest - now_ms + kept_p[3] + kept_p[12]))
        end
        end
        kept, kept_dirty, run_count = nil, false, 0
        if not entry then
            entry, still_live, write, settle = ring_entries(SLOT)
        end
        local head, live, oldest, cap, cost = head3, live3, oldest3, cap3, cost3
        if live + cost > cap then -- live entries are replaced: the oldest live one is then the one after them
            oldest, live = cost < cap and entry(kn3, HEAD, head, cap, cost) or held, cap
        else
            oldest, live = live == 0 and held or oldest, live + cost
        end
        write(kn3, HEAD, cap, head, cost, spack('>I6', held))
        call('SETRANGE', kn3, '0', spack(HEADER, (head + cost) % cap, live, held, oldest, cap, p3[12]))
        call('PEXPIRE', kn3, format('%d', held - now_ms + p3[3] + p3[12])) -- renewed: ring.lua
    elseif took3 and cost3 > 0 then
        local head, now, live, oldest, cap, cost = head3, now3, live3, oldest3, cap3, cost3
        if kn3 == kept then
            -- checked from the kept header: the entries join those kept, which they follow in the ring at the same
            -- time (else those are written first); the header and expiry wait
            if run_count > 0 and run_now == now and (run_first + run_count) % cap == head and run_count + cost <= cap then
                run_count = run_count + cost
            else
                if run_count > 0 then
                    write(kept, HEAD, cap, run_first, run_count, spack('>I6', run_now))
                end
                if not entry then
                    entry, still_live, write, settle = ring_entries(SLOT)
                end
                run_first, run_count, run_now = head, cost, now
            end
            kept_dirty = true
        else
            -- the ring's first admission in this script call (a lone decision's only one): written at once
            local stamp = now == now_ms and now_stamp or spack('>I6', now)
            local fits = min(cost, cap - head)
            call('SETRANGE', kn3, format('%d', HEAD + head * SLOT), fits == 1 and stamp or rep(stamp, fits))
            if cost > fits then
                call('SETRANGE', kn3, format('%d', HEAD), rep(stamp, cost - fits))
            end
            -- the expiry is renewed once an eighth of the window has passed since it was (ring.lua): to a window and
            -- an eighth past the newest entry, which a slot held puts ahead of Redis's time
            local due = now >= renew3
            renew3 = due and now + p3[12] or renew3
            call('SETRANGE', kn3, '0', spack(HEADER, (head + cost) % cap, live + cost, now, live == 0 and now or oldest,
                cap, renew3 - now))
            if due then
                call('PEXPIRE', kn3, now == now_ms and p3[7] or format('%d', now - now_ms + p3[3] + p3[12]))
            end
            kept, kept_dirty, run_count = kn3, false, 0
        end
        kept_head, kept_live, kept_newest = (head + cost) % cap, live + cost, now
        kept_oldest, kept_cap, kept_renew, kept_p = live == 0 and now or oldest, cap, renew3, p3
    end
    -- taken unless only checked; a call that holds a slot takes it from each enforced key, with room now or not
    local took4 = (allowed4 == 1 and admitted >= 1 or admitted == 2 and flags4 % 2 == 0) and flags4 % 8 < 4
    if took4 and cost4 > 0 and held then
        -- The call holds a slot at `held` (decide.lua): the cost is taken now, dated then, in the place of the oldest
        -- entries. Where those are still live, each is replaced by one at least a window later (the slot is never
        -- before the earliest time the cost fits), so no count falls: the ring counts the slot from now on, and as an
        -- admission from its time. Written at once; a ring kept for the batch is written first and read again after.
        if kept_dirty then
        -- the kept ring written: its entries, its header, and its expiry once the admission's eighth has passed
        do
            local due = kept_newest >= kept_renew
            kept_renew = due and kept_newest + kept_p[12] or kept_renew
            settle(kept, HEAD, kept_cap, run_first, run_count, run_now,
                spack(HEADER, kept_head, kept_live, kept_newest, kept_oldest, kept_cap, kept_renew - kept_newest),
                due and format('%d', kept_newest - now_ms + kept_p[3] + kept_p[12]))
        end
        end
        kept, kept_dirty, run_count = nil, false, 0
        if not entry then
            entry, still_live, write, settle = ring_entries(SLOT)
        end
        local head, live, oldest, cap, cost = head4, live4, oldest4, cap4, cost4
        if live + cost > cap then -- live entries are replaced: the oldest live one is then the one after them
            oldest, live = cost < cap and entry(kn4, HEAD, head, cap, cost) or held, cap
        else
            oldest, live = live == 0 and held or oldest, live + cost
        end
        write(kn4, HEAD, cap, head, cost, spack('>I6', held))
        call('SETRANGE', kn4, '0', spack(HEADER, (head + cost) % cap, live, held, oldest, cap, p4[12]))
        call('PEXPIRE', kn4, format('%d', held - now_ms + p4[3] + p4[12])) -- renewed: ring.lua
    elseif took4 and cost4 > 0 then
        local head, now, live, oldest, cap, cost = head4, now4, live4, oldest4, cap4, cost4
        if kn4 == kept then
            -- checked from the kept header: the entries join those kept, which they follow in the ring at the same
            -- time (else those are written first); the header and expiry wait
            if run_count > 0 and run_now == now and (run_first + run_count) % cap == head and run_count + cost <= cap then
                run_count = run_count + cost
            else
                if run_count > 0 then
                    write(kept, HEAD, cap, run_first, run_count, spack('>I6', run_now))
                end
                if not entry then
                    entry, still_live, write, settle = ring_entries(SLOT)
                end
                run_first, run_count, run_now = head, cost, now
            end
            kept_dirty = true
        else
            -- the ring's first admission in this script call (a lone decision's only one): written at once
            local stamp = now == now_ms and now_stamp or spack('>I6', now)
            local fits = min(cost, cap - head)
            call('SETRANGE', kn4, format('%d', HEAD + head * SLOT), fits == 1 and stamp or rep(stamp, fits))
            if cost > fits then
                call('SETRANGE', kn4, format('%d', HEAD), rep(stamp, cost - fits))
            end
            -- the expiry is renewed once an eighth of the window has passed since it was (ring.lua): to a window and
            -- an eighth past the newest entry, which a slot held puts ahead of Redis's time
            local due = now >= renew4
            renew4 = due and now + p4[12] or renew4
            call('SETRANGE', kn4, '0', spack(HEADER, (head + cost) % cap, live + cost, now, live == 0 and now or oldest,
                cap, renew4 - now))
            if due then
                call('PEXPIRE', kn4, now == now_ms and p4[7] or format('%d', now - now_ms + p4[3] + p4[12]))
            end
            kept, kept_dirty, run_count = kn4, false, 0
        end
        kept_head, kept_live, kept_newest = (head + cost) % cap, live + cost, now
        kept_oldest, kept_cap, kept_renew, kept_p = live == 0 and now or oldest, cap, renew4, p4
    end
    -- taken unless only checked; a call that holds a slot takes it from each enforced key, with room now or not
    local took5 = (allowed5 == 1 and admitted >= 1 or admitted == 2 and flags5 % 2 == 0) and flags5 % 8 < 4
    if took5 and cost5 > 0 and held then
        -- The call holds a slot at `held` (decide.lua): the cost is taken now, dated then, in the place of the oldest
        -- entries. Where those are still live, each is replaced by one at least a window later (the slot is never
        -- before the earliest time the cost fits), so no count falls: the ring counts the slot from now on, and as an
        -- admission from its time. Written at once; a ring kept for the batch is written first and read again after.
        if kept_dirty then
        -- the kept ring written: its entries, its header, and its expiry once the admission's eighth has passed
        do
            local due = kept_newest >= kept_renew
            kept_renew = due and kept_newest + kept_p[12] or kept_renew
            settle(kept, HEAD, kept_cap, run_first, run_count, run_now,
                spack(HEADER, kept_head, kept_live, kept_newest, kept_oldest, kept_cap, kept_renew - kept_newest),
                due and format('%d', kept_newest - now_ms + kept_p[3] + kept_p[12]))
        end
        end
        kept, kept_dirty, run_count = nil, false, 0
        if not entry then
            entry, still_live, write, settle = ring_entries(SLOT)
        end
        local head, live, oldest, cap, cost = head5, live5, oldest5, cap5, cost5
        if live + cost > cap then -- live entries are replaced: the oldest live one is then the one after them
            oldest, live = cost < cap and entry(kn5, HEAD, head, cap, cost) or held, cap
        else
            oldest, live = live == 0 and held or oldest, live + cost
        end
        write(kn5, HEAD, cap, head, cost, spack('>I6', held))
        call('SETRANGE', kn5, '0', spack(HEADER, (head + cost) % cap, live, held, oldest, cap, p5[12]))
        call('PEXPIRE', kn5, format('%d', held - now_ms + p5[3] + p5[12])) -- renewed: ring.lua
    elseif took5 and cost5 > 0 then
        local head, now, live, oldest, cap, cost = head5, now5, live5, oldest5, cap5, cost5
        if kn5 == kept then
            -- checked from the kept header: the entries join those kept, which they follow in the ring at the same
            -- time (else those are written first); the header and expiry wait
            if run_count > 0 and run_now == now and (run_first + run_count) % cap == head and run_count + cost <= cap then
                run_count = run_count + cost
            else
                if run_count > 0 then
                    write(kept, HEAD, cap, run_first, run_count, spack('>I6', run_now))
                end
                if not entry then
                    entry, still_live, write, settle = ring_entries(SLOT)
                end
                run_first, run_count, run_now = head, cost, now
            end
            kept_dirty = true
        else
            -- the ring's first admission in this script call (a lone decision's only one): written at once
            local stamp = now == now_ms and now_stamp or spack('>I6', now)
            local fits = min(cost, cap - head)
            call('SETRANGE', kn5, format('%d', HEAD + head * SLOT), fits == 1 and stamp or rep(stamp, fits))
            if cost > fits then
                call('SETRANGE', kn5, format('%d', HEAD), rep(stamp, cost - fits))
            end
            -- the expiry is renewed once an eighth of the window has passed since it was (ring.lua): to a window and
            -- an eighth past the newest entry, which a slot held puts ahead of Redis's time
            local due = now >= renew5
            renew5 = due and now + p5[12] or renew5
            call('SETRANGE', kn5, '0', spack(HEADER, (head + cost) % cap, live + cost, now, live == 0 and now or oldest,
                cap, renew5 - now))
            if due then
                call('PEXPIRE', kn5, now == now_ms and p5[7] or format('%d', now - now_ms + p5[3] + p5[12]))
            end
            kept, kept_dirty, run_count = kn5, false, 0
        end
        kept_head, kept_live, kept_newest = (head + cost) % cap, live + cost, now
        kept_oldest, kept_cap, kept_renew, kept_p = live == 0 and now or oldest, cap, renew5, p5
    end
    -- taken unless only checked; a call that holds a slot takes it from each enforced key, with room now or not
    local took6 = (allowed6 == 1 and admitted >= 1 or admitted == 2 and flags6 % 2 == 0) and flags6 % 8 < 4
    if took6 and cost6 > 0 and held then
        -- The call holds a slot at `held` (decide.lua): the cost is taken now, dated then, in the place of the oldest
        -- entries. Where those are still live, each is replaced by one at least a window later (the slot is never
        -- before the earliest time the cost fits), so no count falls: the ring counts the slot from now on, and as an
        -- admission from its time. Written at once; a ring kept for the batch is written first and read again after.
        if kept_dirty then
        -- the kept ring written: its entries, its header, and its expiry once the admission's eighth has passed
        do
            local due = kept_newest >= kept_renew
            kept_renew = due and kept_newest + kept_p[12] or kept_renew
            settle(kept, HEAD, kept_cap, run_first, run_count, run_now,
                spack(HEADER, kept_head, kept_live, kept_newest, kept_oldest, kept_cap, kept_renew - kept_newest),
                due and format('%d', kept_newest - now_ms + kept_p[3] + kept_p[12]))
        end
        end
        kept, kept_dirty, run_count = nil, false, 0
        if not entry then
            entry, still_live, write, settle = ring_entries(SLOT)
        end
        local head, live, oldest, cap, cost = head6, live6, oldest6, cap6, cost6
        if live + cost > cap then -- live entries are replaced: the oldest live one is then the one after them
            oldest, live = cost < cap and entry(kn6, HEAD, head, cap, cost) or held, cap
        else
            oldest, live = live == 0 and held or oldest, live + cost
        end
        write(kn6, HEAD, cap, head, cost, spack('>I6', held))
        call('SETRANGE', kn6, '0', spack(HEADER, (head + cost) % cap, live, held, oldest, cap, p6[12]))
        call('PEXPIRE', kn6, format('%d', held - now_ms + p6[3] + p6[12])) -- renewed: ring.lua
    elseif took6 and cost6 > 0 then
        local head, now, live, oldest, cap, cost = head6, now6, live6, oldest6, cap6, cost6
        if kn6 == kept then
            -- checked from the kept header: the entries join those kept, which they follow in the ring at the same
            -- time (else those are written first); the header and expiry wait
            if run_count > 0 and run_now == now and (run_first + run_count) % cap == head and run_count + cost <= cap then
                run_count = run_count + cost
            else
                if run_count > 0 then
                    write(kept, HEAD, cap, run_first, run_count, spack('>I6', run_now))
                end
                if not entry then
                    entry, still_live, write, settle = ring_entries(SLOT)
                end
                run_first, run_count, run_now = head, cost, now
            end
            kept_dirty = true
        else
            -- the ring's first admission in this script call (a lone decision's only one): written at once
            local stamp = now == now_ms and now_stamp or spack('>I6', now)
            local fits = min(cost, cap - head)
            call('SETRANGE', kn6, format('%d', HEAD + head * SLOT), fits == 1 and stamp or rep(stamp, fits))
            if cost > fits then
                call('SETRANGE', kn6, format('%d', HEAD), rep(stamp, cost - fits))
            end
            -- the expiry is renewed once an eighth of the window has passed since it was (ring.lua): to a window and
            -- an eighth past the newest entry, which a slot held puts ahead of Redis's time
            local due = now >= renew6
            renew6 = due and now + p6[12] or renew6
            call('SETRANGE', kn6, '0', spack(HEADER, (head + cost) % cap, live + cost, now, live == 0 and now or oldest,
                cap, renew6 - now))
            if due then
                call('PEXPIRE', kn6, now == now_ms and p6[7] or format('%d', now - now_ms + p6[3] + p6[12]))
            end
            kept, kept_dirty, run_count = kn6, false, 0
        end
        kept_head, kept_live, kept_newest = (head + cost) % cap, live + cost, now
        kept_oldest, kept_cap, kept_renew, kept_p = live == 0 and now or oldest, cap, renew6, p6
    end
    out[1], out[2] = admitted, now_ms
    local m = 2
    -- a key with room reports what is left after taking the cost; if it took nothing, the cost is added back. The
    -- common answer, room and a whole window to its reset, is the remaining count alone
    if allowed1 == 1 and not took1 then
        remaining1 = remaining1 + cost1
    end
    if admitted == 2 and took1 then -- the slot held: admitted then, with nothing known left
        allowed1, remaining1, reset1, retry1 = 1, 0, held - now_ms + p1[3], held - now_ms
    end
    if allowed1 == 1 and retry1 == 0 and reset1 == p1[3] and remaining1 >= 0 then
        out[m + 1], m = remaining1, m + 1
    else
        out[m + 1], out[m + 2], out[m + 3], out[m + 4], m = allowed1 - 2, remaining1, reset1, retry1, m + 4
    end
    -- a key with room reports what is left after taking the cost; if it took nothing, the cost is added back. The
    -- common answer, room and a whole window to its reset, is the remaining count alone
    if allowed2 == 1 and not took2 then
        remaining2 = remaining2 + cost2
    end
    if admitted == 2 and took2 then -- the slot held: admitted then, with nothing known left
        allowed2, remaining2, reset2, retry2 = 1, 0, held - now_ms + p2[3], held - now_ms
    end
    if allowed2 == 1 and retry2 == 0 and reset2 == p2[3] and remaining2 >= 0 then
        out[m + 1], m = remaining2, m + 1
    else
        out[m + 1], out[m + 2], out[m + 3], out[m + 4], m = allowed2 - 2, remaining2, reset2, retry2, m + 4
    end
    -- a key with room reports what is left after taking the cost; if it took nothing, the cost is added back. The
    -- common answer, room and a whole window to its reset, is the remaining count alone
    if allowed3 == 1 and not took3 then
        remaining3 = remaining3 + cost3
    end
    if admitted == 2 and took3 then -- the slot held: admitted then, with nothing known left
        allowed3, remaining3, reset3, retry3 = 1, 0, held - now_ms + p3[3], held - now_ms
    end
    if allowed3 == 1 and retry3 == 0 and reset3 == p3[3] and remaining3 >= 0 then
        out[m + 1], m = remaining3, m + 1
    else
        out[m + 1], out[m + 2], out[m + 3], out[m + 4], m = allowed3 - 2, remaining3, reset3, retry3, m + 4
    end
    -- a key with room reports what is left after taking the cost; if it took nothing, the cost is added back. The
    -- common answer, room and a whole window to its reset, is the remaining count alone
    if allowed4 == 1 and not took4 then
        remaining4 = remaining4 + cost4
    end
    if admitted == 2 and took4 then -- the slot held: admitted then, with nothing known left
        allowed4, remaining4, reset4, retry4 = 1, 0, held - now_ms + p4[3], held - now_ms
    end
    if allowed4 == 1 and retry4 == 0 and reset4 == p4[3] and remaining4 >= 0 then
        out[m + 1], m = remaining4, m + 1
    else
        out[m + 1], out[m + 2], out[m + 3], out[m + 4], m = allowed4 - 2, remaining4, reset4, retry4, m + 4
    end
    -- a key with room reports what is left after taking the cost; if it took nothing, the cost is added back. The
    -- common answer, room and a whole window to its reset, is the remaining count alone
    if allowed5 == 1 and not took5 then
        remaining5 = remaining5 + cost5
    end
    if admitted == 2 and took5 then -- the slot held: admitted then, with nothing known left
        allowed5, remaining5, reset5, retry5 = 1, 0, held - now_ms + p5[3], held - now_ms
    end
    if allowed5 == 1 and retry5 == 0 and reset5 == p5[3] and remaining5 >= 0 then
        out[m + 1], m = remaining5, m + 1
    else
        out[m + 1], out[m + 2], out[m + 3], out[m + 4], m = allowed5 - 2, remaining5, reset5, retry5, m + 4
    end
    -- a key with room reports what is left after taking the cost; if it took nothing, the cost is added back. The
    -- common answer, room and a whole window to its reset, is the remaining count alone
    if allowed6 == 1 and not took6 then
        remaining6 = remaining6 + cost6
    end
    if admitted == 2 and took6 then -- the slot held: admitted then, with nothing known left
        allowed6, remaining6, reset6, retry6 = 1, 0, held - now_ms + p6[3], held - now_ms
    end
    if allowed6 == 1 and retry6 == 0 and reset6 == p6[3] and remaining6 >= 0 then
        out[m + 1], m = remaining6, m + 1
    else
        out[m + 1], out[m + 2], out[m + 3], out[m + 4], m = allowed6 - 2, remaining6, reset6, retry6, m + 4
    end
    if capped then
        for j = 1, #capped do
            out[m + j] = capped[j]
        end
        m = m + #capped
    end
    -- one bulk string, cheaper to read than a list: the answers joined by commas, made with %d (see ring.lua)
    if m == 6 + 2 then
        replies[c] = format(COMMON, unpack(out, 1, m))
    else
        local f = m <= JOINED_MAX and string.sub(JOINED, 1, 3 * m - 1) or rep('%d,', m - 1) .. '%d'
        replies[c] = format(f, unpack(out, 1, m))
    end
    -- the call is decided and answered
end
if kept_dirty then
        -- the kept ring written: its entries, its header, and its expiry once the admission's eighth has passed
        do
            local due = kept_newest >= kept_renew
            kept_renew = due and kept_newest + kept_p[12] or kept_renew
            settle(kept, HEAD, kept_cap, run_first, run_count, run_now,
                spack(HEADER, kept_head, kept_live, kept_newest, kept_oldest, kept_cap, kept_renew - kept_newest),
                due and format('%d', kept_newest - now_ms + kept_p[3] + kept_p[12]))
        end
end
return replies
