-- the decision script of calls of the shape 1ah, as DecisionScripts assembles it from src/main/resources/.../limits (SHA-1 58418f5e09b9ed6314acdb68da375db4d425bd89)
-- for: a waiting call: a sliding window with staggered advice that holds a slot (the sample's wait)
-- Written by: ./mvnw -q -pl ratelimit-redis -am test -Dtest=AssembledScriptsTest -Dsurefire.failIfNoSpecifiedTests=false -Dratelimit.scripts.write=true
-- Do not edit: change the pieces, then write these files again. The script starts below this line.
-- ratelimit decision script for calls of the shape 1ah (assembled by DecisionScripts from decide/*.lua)
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
if #ARGV ~= 1 + calls * (1 + 1) or #KEYS ~= calls * 2 or calls > math.huge then
    return redis.error_reply('ratelimit: ' .. #ARGV .. ' arguments and ' .. #KEYS .. ' keys for ' .. calls
        .. ' calls of 1 keys and 2 key names (at most math.huge calls)')
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
local specs_1ah = {} -- the specs of keys of this kind, by text
-- Every call's arguments are checked before anything is written, so a bad one changes nothing. Each key's spec is
-- parsed once per script call into an array, however many calls of the batch share it.
for c = 1, calls do -- for c = 1, calls do (a shape too wide for a loop decides one call: do local c = 1)
    local a = 2 + (c - 1) * (1 + 1)
    if ARGV[a] ~= '1' then
        return redis.error_reply('ratelimit: bad number of keys for call ' .. c)
    end
    do -- its locals end with it: a wide call checks many keys
        local text = ARGV[a + 1]
        if not specs_1ah[text] then
            local g, l, w, q, f, h = string.match(text or '', '^(%d),(%d+),(%d+),(%d+),(%d+),(%d+)$')
            if not g then
                return redis.error_reply('ratelimit: bad arguments for key ' .. ((c - 1) * 1 + 1))
            end
            g, l, w, q, f, h = tonumber(g), tonumber(l), tonumber(w), tonumber(q), tonumber(f), tonumber(h)
            if g ~= 1 or l < 1 or w < 1 or q > l or f > 15 or (f % 4 >= 2) ~= true or (f >= 8) ~= true
                or g == 1 and l > 16777215 then
                return redis.error_reply('ratelimit: bad arguments for key ' .. ((c - 1) * 1 + 1))
            end
            local eighth = min(ceil(w / 8), 16777215)
            specs_1ah[text] = {g, l, w, q, f, h, format('%d', w + eighth), l, 0, 0, 0, eighth}
        end
    end
end
-- the format of up to 24 integers joined by commas (a call's answers are usually fewer)
local JOINED, JOINED_MAX = '%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d', 24
local COMMON = '%d,%d,%d' -- a call's reply when each of its 1 answers is the common one
local replies = {}
local out = {0, 0, 0} -- the current call's answers (reused: a call's reply is made of the first m)
for c = 1, calls do
    local a, kb = 2 + (c - 1) * (1 + 1), (c - 1) * 2
    local admitted, held, capped = 1, nil, nil -- held: the time of the slot a refused waiting call holds
    local p1 = specs_1ah[ARGV[a + 1]]
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
    -- A refused call that will wait (keys that hold: sliding windows with staggered advice) holds a slot when every key
    -- that refused it was advised a time within its horizon (the caller's wait): the latest of those times, and never
    -- before a key's newest entry, so that each ring stays in time order. Then each of its keys takes its cost dated
    -- then (sliding.lua, hold), and the call is answered admitted (2) with the time to wait: the caller goes on at its
    -- slot without asking again. Otherwise it is refused with that advice.
    if admitted == 0 then
        held = now_ms
    -- advised before anything is written: whether the call holds a slot depends on every refusing key's advice
    if allowed1 == 0 and flags1 % 2 == 0 then
        local cursor = KEYS[kb + 2]
        local slot = ceil(p1[3] * cost1 / p1[2])
        local last = tonumber(call('GET', cursor) or '0')
        local advice = max(now_ms + retry1, last + slot)
        local latest = now_ms + max(retry1, p1[6])
        if advice > latest then -- at most the horizon ahead (never before the earliest retry)
            advice = latest
            capped = capped or {}
            capped[#capped + 1] = 1
        end
        call('SET', cursor, format('%d', advice), 'PX', format('%d', max(1, advice - now_ms)))
        retry1 = advice - now_ms
        held = held and retry1 <= p1[6] and max(held, now_ms + retry1) or nil
    end
    held = held and max(held, now1) -- never before the key's newest entry
        if held then
            admitted = 2
        end
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
    if capped then
        for j = 1, #capped do
            out[m + j] = capped[j]
        end
        m = m + #capped
    end
    -- one bulk string, cheaper to read than a list: the answers joined by commas, made with %d (see ring.lua)
    if m == 1 + 2 then
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
