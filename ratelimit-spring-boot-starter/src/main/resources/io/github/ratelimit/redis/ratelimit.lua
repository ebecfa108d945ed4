-- Decides one or more calls, in order, in one atomic script: a batch of calls that reached the same Redis
-- together (concurrent callers share a round trip; each call is still decided on its own). A call is admitted
-- only if every enforced key of it has room, and then each of its keys with room takes its cost; otherwise
-- nothing is written for that call. Shadow keys never decide a call: they take their cost when the call is
-- admitted and they have room, and report when they would have refused.
--
-- ARGV[1]          the number of calls
-- then per call:   the number n of its keys, then per key one spec, numbers joined by commas: algorithm (1 sliding
--                  window, 2 fixed window, 3 token bucket), limit, window ms, cost, flags (added: 1 shadow, 2 staggered
--                  retry advice, 4 check only: decided and reported, never taken, as for a call counted only if it
--                  fails), horizon ms (how far ahead staggered advice may reach); or, for several sliding windows of one
--                  identifier in one key (see ring.lua): 4, cost, then a limit and a window ms per window (2 to 16,
--                  answered as that many keys, in that order)
-- KEYS             the keys of the calls, in order (all in one hash slot); a key with staggered advice is
--                  followed by its advice cursor key
--
-- Returns one string per call, integers joined by commas: admitted (1/0), redis time ms, then an answer per key (per
-- window of a key of several): its remaining count alone when it has room and resets a whole window from now (the
-- common case), else allowed - 2 (so negative), remaining, reset ms, retry ms; then, only if staggered advice reached
-- the horizon, the positions (from 1) of those answers. Time comes from the Redis server only. Every key written gets a
-- TTL no longer than its window (a key of several windows: its longest window and at most an eighth more); an advice
-- cursor lives until the advice it holds.
--
-- Staggered advice (the "future window"): a refused call is told the later of the earliest time it could be
-- admitted and one slot (window / limit, times its cost) after the advice last handed out for the same key; that
-- advice becomes the cursor. So callers refused together are told times one slot apart, and come back spread out.
-- The cursor is one number, whatever the number of refusals, and never an advice beyond the horizon.
--
-- Written for speed: every redis.call costs about as much as a small command, so each algorithm makes as few
-- as it can, and the checks return several values instead of building tables.

if redis.replicate_commands then
    -- Redis < 5 replicates scripts verbatim unless told otherwise; TIME must not be re-run on replicas.
    redis.replicate_commands()
end

local call = redis.call
local floor, ceil, max, min = math.floor, math.ceil, math.max, math.min

local t = call('TIME')
local now_us = tonumber(t[1]) * 1000000 + tonumber(t[2])
local now_ms = floor(now_us / 1000)

-- Sliding window: the ring's format and codec are in ring.lua, loaded before this script.

local now_stamp -- p48(now_ms), made once per script call

-- A plan's quota grew beyond the ring's capacity: the ring is rewritten with the new capacity, its live entries kept
-- in time order from slot 0, so that a caller keeps what was counted and gets the difference at once. (A quota that
-- shrinks keeps the larger ring: its entries still count, and the next growth finds them.) Returns the new head,
-- live, newest, oldest. Rare (an upgrade), so it may read the live entries.
local function resize(key, head, live, newest, cap, limit, window)
    if live == 0 then
        call('DEL', key)
        return 0, 0, 0, 0
    end
    -- the live entries, oldest first, as one string (missing slots as zeros)
    local first = (head + cap - live) % cap -- the slot of the oldest of them
    local entries
    if first + live <= cap then
        entries = call('GETRANGE', key, HEAD + first * SLOT, HEAD + (first + live) * SLOT - 1)
    else
        entries = call('GETRANGE', key, HEAD + first * SLOT, HEAD + cap * SLOT - 1)
            .. call('GETRANGE', key, HEAD, HEAD + (first + live - cap) * SLOT - 1)
    end
    if #entries < live * SLOT then
        entries = entries .. rep('\0', live * SLOT - #entries)
    end
    local oldest = sunpack('>I6', entries)
    call('SET', key, spack('>I4I4I6I6I4', live % limit, live, newest, oldest, limit) .. entries, 'PX', window)
    return live % limit, live, newest, oldest
end

-- returns allowed, remaining, reset, retry, then what the commit needs: head, the decision's time, live
-- entries, the oldest live entry, the ring's capacity (the limit, or more after a plan's quota shrank)
local function sliding_check(key, limit, window, cost)
    local head, live, newest, oldest, cap = fields(call('GETRANGE', key, '0', HEAD_LAST))
    if cap == 0 then
        cap = limit -- a new ring
    elseif cap < limit then
        head, live, newest, oldest = resize(key, head, live, newest, cap, limit, window)
        cap = limit
    end
    if live == 0 then
        newest, oldest = 0, 0
    end
    local moved = false -- whether the oldest live entry is another than the header says
    local now = max(now_ms, newest) -- never let a clock step back reopen the window
    if live > 0 and now - oldest >= window then
        live, oldest, moved = still_live(key, HEAD, head, cap, live, oldest, window, now)
    end
    local reset = 0
    if live > 0 then
        reset = newest + window - now
    end
    if cost == 0 then
        return 1, limit - live, reset, 0
    end
    if live + cost > limit then
        -- the oldest live entries must leave until the cost fits: the last of them is the (live + cost - limit)-th
        -- oldest live entry, at logical index cap - limit + cost - 1; counted from now_ms, the time the caller sees
        local needed = entry(key, HEAD, head, cap, cap - limit + cost - 1)
        return 0, limit - live, reset, needed + window - now_ms
    end
    return 1, limit - live - cost, window, 0, head, now, live, moved and oldest, cap
end

-- `oldest` is the new oldest live entry when it is another than the header's, else false; `window` is the window in
-- ms as text
local function sliding_commit(key, window, cost, head, now, live, oldest, cap)
    local stamp
    if now == now_ms then
        now_stamp = now_stamp or p48(now_ms)
        stamp = now_stamp
    else
        stamp = p48(now)
    end
    local first = min(cost, cap - head)
    call('SETRANGE', key, format('%d', HEAD + head * SLOT), first == 1 and stamp or rep(stamp, first))
    if cost > first then
        call('SETRANGE', key, format('%d', HEAD), rep(stamp, cost - first))
    end
    local header = spack('>I4I4', (head + cost) % cap, live + cost) .. stamp
    if live == 0 then
        header = header .. stamp .. spack('>I4', cap) -- the oldest live entry is the first written now; the capacity
    elseif oldest then
        header = header .. p48(oldest)
    end -- else the oldest live entry is unchanged: the header's last 10 bytes stay
    call('SETRANGE', key, '0', header)
    call('PEXPIRE', key, window)
end

-- Fixed window: a counter that expires `window` ms after the window's first admitted call. Returns allowed,
-- remaining, reset, retry, then the count, the time left and whether the counter is new.
local function fixed_check(key, limit, window, cost)
    local count = tonumber(call('GET', key) or '0')
    local ttl = window
    local fresh = true
    if count > 0 then
        local pttl = call('PTTL', key)
        if pttl >= 0 then
            ttl = pttl
            fresh = false
        end -- a counter without expiry cannot come from us: give it one on the next write
    end
    -- Redis deletes a key one millisecond after its PTTL reaches 0, and PTTL may be read in the millisecond
    -- after now_ms (the decision time the caller sees): 2 ms more, so that waiting the answer always suffices
    if count + cost > limit then
        return 0, limit - count, ttl + 2, ttl + 2
    end
    return 1, limit - count - cost, ttl + 2, 0, count, ttl, fresh
end

local function fixed_commit(key, cost, count, ttl, fresh)
    if fresh then
        call('SET', key, format('%d', count + cost), 'PX', format('%d', ttl))
    else
        call('INCRBY', key, format('%d', cost))
    end
end

-- Token bucket as GCRA: one theoretical arrival time (TAT, epoch microseconds) per key. Returns allowed,
-- remaining, reset, retry, then the new TAT.
local function bucket_check(key, limit, window, cost)
    local interval = window * 1000 / limit
    local burst = window * 1000
    local tat = max(tonumber(call('GET', key) or '0'), now_us)
    local new_tat = tat + cost * interval
    local allow_at = new_tat - burst
    -- waits are counted from now_ms, the decision time the caller sees, and rounded up to whole ms, so
    -- that the decision time plus the wait is never before the moment the call can succeed
    if now_us < allow_at then
        local remaining = floor((now_us + burst - tat) / interval)
        return 0, remaining, ceil(tat / 1000) - now_ms, ceil(allow_at / 1000) - now_ms
    end
    local remaining = floor((now_us + burst - new_tat) / interval)
    return 1, remaining, ceil(new_tat / 1000) - now_ms, 0, new_tat
end

local function bucket_commit(key, new_tat)
    new_tat = ceil(new_tat)
    call('SET', key, format('%.0f', new_tat), 'PX', format('%d', max(1, ceil((new_tat - now_us) / 1000))))
end

-- One answer into `out` after position m; returns the new position. The common answer, a key (or window) that has
-- room and resets a whole window from now, is its remaining count alone (never negative); any other is four values,
-- the first of them allowed - 2 (so negative): allowed, remaining, reset, retry as they are.
local function answer(out, m, allowed, remaining, reset, retry, window)
    if allowed == 1 and retry == 0 and reset == window and remaining >= 0 then
        out[m + 1] = remaining
        return m + 1
    end
    out[m + 1], out[m + 2], out[m + 3], out[m + 4] = allowed - 2, remaining, reset, retry
    return m + 4
end

-- Several sliding windows in one ring (ring.lua), made when a script call meets the first such key (see the top of
-- ring.lua: most calls never do). A key's header is read once per script call and kept while the calls of the batch
-- are decided; what they admitted is written back once, at the end (`flush`). Returns spec(text), check(key, p,
-- position), commit(key, p), report(out, m, position, p, took) and flush().
local function several_keys()
    local codec = multi_codec()
    local several = {} -- key -> its header as a flat table (the codec's state)
    local dirty = {} -- key -> its spec, for the keys whose header must be written back
    local found = {} -- each window's allowed, remaining, reset, retry, per position of the key in its call (reused)

    -- "4,cost,limit,window,limit,window,...": the spec of a key of several windows, or nil when it is not one
    local function spec(text)
        local v, n = {}, 0
        for part in string.gmatch(text, '[^,]+') do
            n = n + 1
            v[n] = tonumber(part)
            if not v[n] then
                return nil
            end
        end
        local q, w = v[2], (n - 2) / 2
        if v[1] ~= 4 or not q or q < 0 or w < 2 or w > 16 or w ~= floor(w) then
            return nil
        end
        local limits, windows, largest, longest = {}, {}, 0, 0
        for j = 1, w do
            local lj, wj = v[1 + 2 * j], v[2 + 2 * j]
            if lj < 1 or wj < 1 or q > lj then
                return nil
            end
            limits[j], windows[j], largest, longest = lj, wj, max(largest, lj), max(longest, wj)
        end
        local base = codec.header_size(w)
        return {g = 4, q = q, limits = limits, windows = windows, answers = w, base = base,
                header_last = format('%d', base - 1), largest = largest, longest = longest}
    end

    -- Returns allowed (1 if every window has room), and keeps each window's allowed, remaining, reset, retry for
    -- `report`. `p` is the key's spec: its limits and windows, and the header size, capacity and longest window.
    local function check(key, p, position)
        local limits, windows, n, cost = p.limits, p.windows, p.answers, p.q
        local answers = found[position]
        if not answers then
            answers = {}
            found[position] = answers
        end
        local s = several[key]
        if not s then
            s = codec.state(call('GETRANGE', key, '0', p.header_last), n)
            if s[2] == 0 then
                s[2] = p.largest -- a new ring (the key names every limit and window, so the capacity never changes)
            end
            several[key] = s
        end
        local head, cap, newest, base = s[1], s[2], s[3], p.base
        local now = max(now_ms, newest) -- never let a clock step back reopen a window
        local allowed = 1
        for j = 1, n do
            local at_live = 3 + 2 * j
            local live, oldest, w, l = s[at_live], s[at_live + 1], windows[j], limits[j]
            if live > 0 and now - oldest >= w then
                live, oldest = still_live(key, base, head, cap, live, oldest, w, now)
                s[at_live], s[at_live + 1] = live, oldest -- true whether or not this call is admitted
            end
            local reset = live > 0 and newest + w - now or 0
            local at = (j - 1) * 4
            if cost == 0 then
                answers[at + 1], answers[at + 2], answers[at + 3], answers[at + 4] = 1, l - live, reset, 0
            elseif live + cost > l then
                local needed = entry(key, base, head, cap, cap - l + cost - 1)
                answers[at + 1], answers[at + 2], answers[at + 3], answers[at + 4] =
                    0, l - live, reset, needed + w - now_ms
                allowed = 0
            else
                answers[at + 1], answers[at + 2], answers[at + 3], answers[at + 4] = 1, l - live - cost, w, 0
            end
        end
        return allowed
    end

    -- writes the call's entries into the ring at once (later checks of the batch may read them); the header waits
    local function commit(key, p)
        local s = several[key]
        local head, cap, base, cost = s[1], s[2], p.base, p.q
        local now = max(now_ms, s[3]) -- as check decided it: nothing changed the header in between
        local stamp = p48(now)
        local first = min(cost, cap - head)
        call('SETRANGE', key, format('%d', base + head * SLOT), first == 1 and stamp or rep(stamp, first))
        if cost > first then
            call('SETRANGE', key, format('%d', base), rep(stamp, cost - first))
        end
        for j = 1, p.answers do
            local at_live = 3 + 2 * j
            if s[at_live] == 0 then
                s[at_live + 1] = now -- the first entry written now
            end
            s[at_live] = s[at_live] + cost
        end
        s[1], s[3] = (head + cost) % cap, now
        dirty[key] = p
    end

    -- the answers of the key at `position` into `out` after m (see `answer`); returns the new position
    local function report(out, m, position, p, took)
        local answers = found[position]
        for j = 1, p.answers do
            local at = (j - 1) * 4
            local allowed = answers[at + 1]
            -- a window with room reports what is left after taking the cost; if it took nothing, add the cost back
            local remaining = (allowed == 1 and not took) and (answers[at + 2] + p.q) or answers[at + 2]
            m = answer(out, m, allowed, remaining, answers[at + 3], answers[at + 4], p.windows[j])
        end
        return m
    end

    -- the headers of the keys that admitted calls, once each
    local function flush()
        for key, p in pairs(dirty) do
            local s = several[key]
            if s[3] >= s[4] then
                local slack = ceil(p.longest / 8)
                call('PEXPIRE', key, format('%d', p.longest + slack))
                s[4] = s[3] + slack
            end
            call('SETRANGE', key, '0', codec.pack(s, p.answers))
        end
    end

    return {spec = spec, check = check, commit = commit, report = report, flush = flush}
end

-- Every call's arguments are checked before anything is written, so a bad one changes nothing. A spec is parsed once
-- per script call, however many keys of the batch share it (the calls of a batch usually do).
local specs = {}
local several -- several_keys(), once a spec of several windows is met

local function spec_of(text)
    local p = specs[text]
    if p or not text then
        return p
    end
    local g, l, w, q, f, h = string.match(text, '^([123]),(%d+),(%d+),(%d+),(%d+),(%d+)$')
    if g then
        g, l, w, q, f, h = tonumber(g), tonumber(l), tonumber(w), tonumber(q), tonumber(f), tonumber(h)
        if l < 1 or w < 1 or q > l or f > 7 then
            return nil
        end
        p = {g = g, l = l, w = w, q = q, h = h, shadow = f % 2 == 1, staggered = floor(f / 2) % 2 == 1,
             check_only = f >= 4, answers = 1, window_text = format('%d', w)}
    else
        several = several or several_keys()
        p = several.spec(text)
        if not p then
            return nil
        end
    end
    specs[text] = p
    return p
end

local calls = tonumber(ARGV[1])
local counts, spec, key = {}, {}, {}
local cursor -- key number -> its advice cursor, for keys with staggered advice
local a, k, kk = 2, 0, 0
for c = 1, calls do
    local n = tonumber(ARGV[a])
    counts[c] = n
    a = a + 1
    for _ = 1, n do
        k = k + 1
        local p = spec_of(ARGV[a])
        if not p then
            return redis.error_reply('ratelimit: bad arguments for key ' .. k)
        end
        spec[k] = p
        kk = kk + 1
        key[k] = KEYS[kk]
        if p.staggered then
            kk = kk + 1
            cursor = cursor or {}
            cursor[k] = KEYS[kk]
        end
        a = a + 1
    end
end
if kk ~= #KEYS then
    return redis.error_reply('ratelimit: ' .. #KEYS .. ' keys for ' .. kk .. ' keys and cursors')
end

-- a refused call's staggered advice for key i: the later of its earliest retry and one slot after the last
-- advice handed out, at most the horizon ahead (never before the earliest retry); returns retry ms, capped
local function stagger(i, earliest)
    local p = spec[i]
    local slot = ceil(p.w * p.q / p.l)
    local last = tonumber(call('GET', cursor[i]) or '0')
    local advice = max(now_ms + earliest, last + slot)
    local capped = 0
    local cap = now_ms + max(earliest, p.h)
    if advice > cap then
        advice, capped = cap, 1
    end
    call('SET', cursor[i], format('%d', advice), 'PX', format('%d', max(1, advice - now_ms)))
    return advice - now_ms, capped
end

-- integers joined by commas, made with %d (see ring.lua): the format for n of them is made once
local joins = {}
local function joined(out, n)
    local f = joins[n]
    if not f then
        f = rep('%d,', n - 1) .. '%d'
        joins[n] = f
    end
    return format(f, unpack(out, 1, n))
end

local replies = {}
local r = {} -- the checks of the current call's keys, nine values each: allowed, remaining, reset, retry, commit's
k = 0
for c = 1, calls do
    local first, last = k + 1, k + counts[c]
    local out = {1, now_ms}
    local cappedKeys
    for i = first, last do
        local b = (i - first) * 9
        local p = spec[i]
        local g = p.g
        if g == 1 then
            r[b + 1], r[b + 2], r[b + 3], r[b + 4], r[b + 5], r[b + 6], r[b + 7], r[b + 8], r[b + 9] =
                sliding_check(key[i], p.l, p.w, p.q)
        elseif g == 2 then
            r[b + 1], r[b + 2], r[b + 3], r[b + 4], r[b + 5], r[b + 6], r[b + 7] = fixed_check(key[i], p.l, p.w, p.q)
        elseif g == 3 then
            r[b + 1], r[b + 2], r[b + 3], r[b + 4], r[b + 5] = bucket_check(key[i], p.l, p.w, p.q)
        else
            r[b + 1] = several.check(key[i], p, i - first + 1)
        end
        if r[b + 1] == 0 and not p.shadow then
            out[1] = 0
        end
    end
    local m, position = 2, 0
    for i = first, last do
        local b = (i - first) * 9
        local p = spec[i]
        local g = p.g
        local took = out[1] == 1 and r[b + 1] == 1 and not p.check_only
        if took and p.q > 0 then
            if g == 1 then
                sliding_commit(key[i], p.window_text, p.q, r[b + 5], r[b + 6], r[b + 7], r[b + 8], r[b + 9])
            elseif g == 2 then
                fixed_commit(key[i], p.q, r[b + 5], r[b + 6], r[b + 7])
            elseif g == 3 then
                bucket_commit(key[i], r[b + 5])
            else
                several.commit(key[i], p)
            end
        end
        if g == 4 then
            m = several.report(out, m, i - first + 1, p, took)
            position = position + p.answers
        else
            local remaining = (r[b + 1] == 1 and not took) and (r[b + 2] + p.q) or r[b + 2]
            local retry = r[b + 4]
            position = position + 1
            if out[1] == 0 and r[b + 1] == 0 and cursor and cursor[i] and not p.shadow then
                local capped
                retry, capped = stagger(i, retry)
                if capped == 1 then
                    cappedKeys = cappedKeys or {}
                    cappedKeys[#cappedKeys + 1] = position
                end
            end
            m = answer(out, m, r[b + 1], remaining, r[b + 3], retry, p.w)
        end
    end
    if cappedKeys then
        for j = 1, #cappedKeys do
            out[m + j] = cappedKeys[j]
        end
    end
    replies[c] = joined(out, m + (cappedKeys and #cappedKeys or 0)) -- one bulk string: cheaper to read than a list
    k = last
end
if several then
    several.flush()
end
return replies
