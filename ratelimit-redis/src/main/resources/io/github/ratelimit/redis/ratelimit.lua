-- Decides one or more calls, in order, in one atomic script: a batch of calls that reached the same Redis
-- together (concurrent callers share a round trip; each call is still decided on its own). A call is admitted
-- only if every enforced key of it has room, and then each of its keys with room takes its cost; otherwise
-- nothing is written for that call. Shadow keys never decide a call: they take their cost when the call is
-- admitted and they have room, and report when they would have refused.
--
-- ARGV[1]          the number of calls (tests only: "calls;shift", Redis's clock read as shift ms later, or
--                  "calls;@ms", read as that epoch ms)
-- then per call:   the number n of its keys, then per key one spec, numbers joined by commas: algorithm (1 sliding
--                  window, 2 fixed window, 3 token bucket, 5 calendar quota), limit, window ms, cost, flags (added:
--                  1 shadow, 2 staggered retry advice, 4 check only: decided and reported, never taken, as for a call
--                  counted only if it fails), horizon ms (how far ahead staggered advice may reach); then, only for a
--                  limit with options, "|" and its capacity (the budget the limit's share of it counts in; the limit
--                  is then its ceiling), its penalty ms (0: none) and for a calendar quota the starts of four periods
--                  (epoch ms; the period is the one of the three they bound that Redis's clock falls in); or, for
--                  several sliding windows of one identifier in one key (see ring.lua): 4, cost, then a limit and a
--                  window ms per window (2 to 16, answered as that many keys, in that order)
-- KEYS             the keys of the calls, in order (all in one hash slot); a key with staggered advice is
--                  followed by its advice cursor key, a key with a penalty then by its penalty key
--
-- Returns one string per call, integers joined by commas: admitted (1/0), redis time ms, then an answer per key (per
-- window of a key of several): its remaining count alone when it has room and resets a whole window from now (the
-- common case), else allowed - 2 (so negative), remaining, reset ms, retry ms; then, only if staggered advice reached
-- the horizon, the positions (from 1) of those answers. Time comes from the Redis server only. Every key written gets a
-- TTL no longer than its window (a key of several windows: its longest window and at most an eighth more); an advice
-- cursor lives until the advice it holds.
--
-- A calendar quota is a count per period (a day, week or month in a time zone, whose starts Java's time zone rules
-- give): a fixed window that ends at its period's end. A fixed window's or calendar quota's count may be below zero
-- after a credit (ratelimit_credit.lua): more than the limit fits until it ends. A penalty: a key that refuses a call (not a shadow) puts the
-- identifier in its penalty box, a key that holds the box's end and lives as long as the penalty, and deletes its
-- count; until that end, the key refuses every call, told the time left; then the identifier starts afresh.
--
-- Staggered advice (the "future window"): a refused call is told the later of the earliest time it could be
-- admitted and one slot (window / limit, times its cost) after the advice last handed out for the same key; that
-- advice becomes the cursor. So callers refused together are told times one slot apart, and come back spread out.
-- The cursor is one number, whatever the number of refusals, and never an advice beyond the horizon.
--
-- Written for speed: every redis.call costs about as much as a small command, so each algorithm makes as few as it
-- can. And Lua makes every function of a script anew on each run (with the garbage it leaves), which costs a lone
-- decision more than its commands: so the three algorithms are written out in the main loop, and the few functions
-- that remain capture no local of the run (see ring.lua): `answer`, shared by both kinds of key, and the makers of
-- what most calls never need (the ring's readers of entries, the keys of several windows).

if redis.replicate_commands then
    -- Redis < 5 replicates scripts verbatim unless told otherwise; TIME must not be re-run on replicas.
    redis.replicate_commands()
end

local call = redis.call
local floor, ceil, max, min = math.floor, math.ceil, math.max, math.min

local t = call('TIME')
local now_us = tonumber(t[1]) * 1000000 + tonumber(t[2])
local calls = tonumber(ARGV[1])
if not calls then -- tests only: the clock shifted
    local c, at, shift = string.match(ARGV[1] or '', '^(%d+);(@?)(-?%d+)$')
    if not c then
        return redis.error_reply('ratelimit: bad number of calls')
    end
    calls, now_us = tonumber(c), (at == '' and now_us or 0) + tonumber(shift) * 1000
end
local now_ms = floor(now_us / 1000)

-- Sliding window: the ring's format and its readers of entries are in ring.lua, loaded before this script.
local entry, still_live, write, settle -- ring_entries(SLOT), once a call needs an entry or keeps entries to write
local now_stamp -- the 6 bytes of now_ms, made once per script call
-- The ring of one window last admitted into (the calls of a batch for one key, a hot key, come one after another) and
-- its header since that admission, so that the key's next call in this script call neither reads nor writes the header:
-- the entries it takes join those kept to be written together (`run_count` from slot `run_first`, all at `run_now`),
-- and `kept_dirty` says that the header and expiry wait too. All of it is written when a call meets another ring of
-- one window, before an entry of the kept ring is read, and at the end.
local kept, kept_head, kept_live, kept_newest, kept_oldest, kept_cap, kept_window
local kept_dirty, run_first, run_count, run_now = false, 0, 0, 0

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

-- The spec of a key of several sliding windows of one identifier (ring.lua's one ring for them all), "4,cost,limit,
-- window,limit,window,...", or nil when the text is not one: an array (see SEVERAL_N below), [1] to [7] as a spec of
-- one window has them (algorithm 4, the cost, no flags) for the main loop. Three windows (the seed's shape) are parsed
-- by one pattern into one table; other counts (2 to 16) by a loop. Captures nothing (see ring.lua).
local function several_spec(text)
    local tonumber, max = tonumber, math.max
    local q, l1, w1, l2, w2, l3, w3 = string.match(text, '^4,(%d+),(%d+),(%d+),(%d+),(%d+),(%d+),(%d+)$')
    if q then
        q, l1, w1, l2, w2, l3, w3 = tonumber(q), tonumber(l1), tonumber(w1), tonumber(l2), tonumber(w2), tonumber(l3),
            tonumber(w3)
        if l1 < 1 or l2 < 1 or l3 < 1 or w1 < 1 or w2 < 1 or w3 < 1 or q > l1 or q > l2 or q > l3 then
            return nil
        end
        return {4, 0, 0, q, 0, 0, false, 3, 50, '49', max(l1, l2, l3), max(w1, w2, w3), '>I4I4I6I6I4I6I4I6I4I6',
            l1, w1, l2, w2, l3, w3}
    end
    if not string.match(text, '^4,[%d,]*%d$') or string.find(text, ',,', 1, true) then
        return nil
    end
    local v = {}
    for part in string.gmatch(string.sub(text, 3), '[^,]+') do
        v[#v + 1] = tonumber(part)
    end
    local c, n = v[1], (#v - 1) / 2
    if n < 2 or n > 16 or n ~= math.floor(n) then
        return nil
    end
    local base = 20 + 10 * n
    local p = {4, 0, 0, c, 0, 0, false, n, base, string.format('%d', base - 1), 0, 0,
        '>I4I4I6I6' .. string.rep('I4I6', n)}
    local largest, longest = 0, 0
    for j = 1, n do
        local l, w = v[2 * j], v[2 * j + 1]
        if l < 1 or w < 1 or c > l then
            return nil
        end
        p[12 + 2 * j], p[13 + 2 * j], largest, longest = l, w, max(largest, l), max(longest, w)
    end
    p[11], p[12] = largest, longest
    return p
end

-- The spec of a limit with options (see ARGV above) as an array, like a plain one's with its capacity at [8], penalty
-- at [9] and a calendar quota's current period from [10] to [11]; nil when the text is not one, false when Redis's clock
-- falls in none of the periods given. Captures nothing (see ring.lua).
local function options_spec(text, now_ms)
    local tonumber = tonumber
    local g, l, w, q, f, h, c, penalty, rest =
        string.match(text, '^([1235]),(%d+),(%d+),(%d+),(%d+),(%d+)|(%d+),(%d+)(.*)$')
    if not g then
        return nil
    end
    g, l, w, q, f, h, c, penalty =
        tonumber(g), tonumber(l), tonumber(w), tonumber(q), tonumber(f), tonumber(h), tonumber(c), tonumber(penalty)
    if l < 1 or w < 1 or q > l or f > 15 or c < l then
        return nil
    end
    local p = {g, l, w, q, f, h, false, c, penalty}
    if g ~= 5 then
        return rest == '' and p or nil
    end
    local b = {string.match(rest, '^,(%d+),(%d+),(%d+),(%d+)$')}
    if #b ~= 4 then
        return nil
    end
    for j = 1, 3 do
        local from, to = tonumber(b[j]), tonumber(b[j + 1])
        if from <= now_ms and now_ms < to then
            p[10], p[11] = from, to
            return p
        end
    end
    return false
end

-- A key's spec, parsed once per script call into an array (cheaper to make than a table of named fields; in the main
-- chunk these names are locals, which cost what a literal index costs).
local ALGORITHM, LIMIT, WINDOW, COST, FLAGS, HORIZON, WINDOW_TEXT = 1, 2, 3, 4, 5, 6, 7
local CAPACITY, PENALTY, PERIOD_START, PERIOD_END = 8, 9, 10, 11 -- [8] and [9] in every spec but several windows'
-- A key's check in `r`, at its offset b: the answer's four values, then what its algorithm's commit needs.
local ALLOWED, REMAINING, RESET, RETRY = 1, 2, 3, 4
local SW_HEAD, SW_NOW, SW_LIVE, SW_OLDEST, SW_CAP, SW_MOVED = 5, 6, 7, 8, 9, 10 -- sliding window
local FW_COUNT, FW_TTL, FW_FRESH = 5, 6, 7 -- fixed window
local TB_TAT = 5 -- token bucket
-- A spec of several windows (several_spec) goes on from [8]: the number of windows, the header's size and its last
-- byte (as text), the largest limit, the longest window, the header's struct format; then window j's limit at
-- [12 + 2j] and its window ms at [13 + 2j]. Its check in `r` keeps only allowed and where its windows' answers start in
-- `found`, four values each (allowed, remaining, reset, retry).
local SEVERAL_N, SEVERAL_BASE, SEVERAL_LAST, SEVERAL_LARGEST, SEVERAL_LONGEST, SEVERAL_FORMAT = 8, 9, 10, 11, 12, 13
local SEVERAL_FOUND = 5
-- and after the check's values, for every key: its spec, its name, its advice cursor's name (false without advice),
-- its penalty key's name (false without a penalty, or when the identifier is in the penalty box already)
local R_SPEC, R_KEY, R_CURSOR, R_BOX, STRIDE = 11, 12, 13, 14, 14

-- Every call's arguments are checked before anything is written, so a bad one changes nothing. A spec is parsed once
-- per script call, however many keys of the batch share it (the calls of a batch usually do), into an array (cheaper
-- to make than named fields): [1] algorithm, [2] limit, [3] window ms, [4] cost, [5] flags, [6] horizon ms,
-- [7] the window as text once a write needs it, [8] the capacity, [9] the penalty ms; a spec with options goes on
-- (options_spec), as does a spec of several windows (see SEVERAL_N).
local specs = {}
local a, k, kk, widest = 2, 0, 0, 0
for c = 1, calls do
    local n = tonumber(ARGV[a])
    if not n then
        return redis.error_reply('ratelimit: bad number of keys for call ' .. c)
    end
    widest = max(widest, n)
    a = a + 1
    for _ = 1, n do
        k = k + 1
        local text = ARGV[a]
        local p = specs[text]
        if not p and text then
            local g, l, w, q, f, h = string.match(text, '^([123]),(%d+),(%d+),(%d+),(%d+),(%d+)$')
            if g then
                g, l, w, q, f, h = tonumber(g), tonumber(l), tonumber(w), tonumber(q), tonumber(f), tonumber(h)
                if l >= 1 and w >= 1 and q <= l and f <= 7 then
                    p = {g, l, w, q, f, h, false, l, 0}
                end
            elseif string.sub(text, 1, 2) == '4,' then
                p = several_spec(text)
            else
                p = options_spec(text, now_ms)
                if p == false then
                    return redis.error_reply('ratelimit: Redis time ' .. now_ms .. ' is in none of the calendar'
                        .. ' periods given for key ' .. k .. ' (the clocks of Redis and the application differ by'
                        .. ' more than a period)')
                end
            end
            specs[text] = p
        end
        if not p then
            return redis.error_reply('ratelimit: bad arguments for key ' .. k)
        end
        kk = kk + 1
        if p[FLAGS] % 4 >= 2 then -- staggered advice: the key is followed by its advice cursor
            kk = kk + 1
        end
        if p[ALGORITHM] ~= 4 and p[PENALTY] > 0 then -- a penalty: then by its penalty key
            kk = kk + 1
        end
        a = a + 1
    end
end
if kk ~= #KEYS then
    return redis.error_reply('ratelimit: ' .. #KEYS .. ' keys for ' .. kk .. ' keys and cursors')
end

-- the format of up to 24 integers joined by commas (a call's answers are usually fewer)
local JOINED, JOINED_MAX = '%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d', 24
local replies = {}
-- The current call's keys, STRIDE values each: the check's allowed, remaining, reset, retry, then what the commit
-- needs (sliding window: head, the decision's time, live entries, the oldest live entry, the ring's capacity (the
-- limit, or more after a plan's quota shrank), whether that oldest entry is another than the header's; fixed window:
-- the count, the time left, whether the counter is new; token bucket: the new theoretical arrival time), then the
-- key's spec, name and cursor. Made at once at the size of one or two keys (the seed's shape): a table that grows
-- leaves its old arrays behind, and garbage costs a script more than most of its commands.
local r
if widest <= 1 then
    r = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}
else
    r = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}
end
local out = {0, 0, 0} -- the current call's answers (reused: a call's reply is made of the first m)
-- Keys of several windows (ring.lua) met in this script call: key -> its state, an array made in one piece: entries
-- taken in this script call and not written yet ([1] first slot, [2] count, [3] time), [4] the key's spec once it
-- admitted a call (its header is written back once, at the end), then the header's fields as several_spec's format
-- reads them: [5] head, [6] capacity, [7] newest, [8] the time from which the expiry must be renewed, window j's live
-- count at [7 + 2j] and oldest live entry at [8 + 2j] (and struct.unpack's last value, the position after them). A
-- key's header is read once per script call; entries not written yet are written before anything reads entries of
-- that key, and the entries of the calls of one key (a hot key) that follow one another in the ring with the same time
-- are written with one command.
local several
local S_FIRST, S_COUNT, S_TIME, S_SPEC, S_HEAD, S_CAP, S_NEWEST, S_RENEW = 1, 2, 3, 4, 5, 6, 7, 8
-- the windows' answers of the current call's keys of several windows, four values per window: made at the size of
-- the seed's shape (two keys of three windows), reused
local found
a, kk = 2, 0
for c = 1, calls do
    local call_keys = tonumber(ARGV[a]) -- checked above
    a = a + 1
    out[1], out[2] = 1, now_ms
    local cappedKeys
    local at_found = 0
    for i = 1, call_keys do
        local b = (i - 1) * STRIDE
        local p = specs[ARGV[a]]
        a, kk = a + 1, kk + 1
        local g, limit, window, cost, kn = p[ALGORITHM], p[LIMIT], p[WINDOW], p[COST], KEYS[kk]
        r[b + R_SPEC], r[b + R_KEY], r[b + R_CURSOR], r[b + R_BOX] = p, kn, false, false
        if p[FLAGS] % 4 >= 2 then
            kk = kk + 1
            r[b + R_CURSOR] = KEYS[kk]
        end
        if g ~= 4 and p[PENALTY] > 0 then
            kk = kk + 1
            r[b + R_BOX] = KEYS[kk]
        end
        if g == 1 then
            -- Sliding window (ring.lua): the header decides, unless entries left the window since the last admission
            local head, live, newest, oldest, cap = 0, 0, 0, 0, 0
            local capacity = p[CAPACITY] -- the limit, or the budget a share of it counts in
            if kn == kept and kept_cap >= capacity then
                head, live, newest, oldest, cap = kept_head, kept_live, kept_newest, kept_oldest, kept_cap
            else
                if kept_dirty then
                    settle(kept, HEAD, kept_cap, run_first, run_count, run_now,
                        spack(HEADER, kept_head, kept_live, kept_newest, kept_oldest, kept_cap), kept_window)
                end
                kept, kept_dirty, run_count = nil, false, 0
                local h = call('GETRANGE', kn, '0', HEAD_LAST)
                if #h >= HEAD then
                    head, live, newest, oldest, cap = sunpack(HEADER, h)
                end
            end
            if cap == 0 then
                cap = capacity -- a new ring
            elseif cap < capacity and cost > 0 then
                -- A plan's quota grew beyond the ring's capacity: the ring is rewritten with the new capacity, its
                -- live entries kept in time order from slot 0, so that a caller keeps what was counted and gets the
                -- difference at once. (A quota that shrinks keeps the larger ring: its entries still count, and the
                -- next growth finds them.) Rare (an upgrade), so it may read the live entries. A read (cost 0) reads
                -- the ring as it is and writes nothing.
                if live == 0 then
                    call('DEL', kn)
                    head, newest, oldest = 0, 0, 0
                else
                    -- the live entries, oldest first, as one string (missing slots as zeros)
                    local from = (head + cap - live) % cap -- the slot of the oldest of them
                    local entries
                    if from + live <= cap then
                        entries = call('GETRANGE', kn, HEAD + from * SLOT, HEAD + (from + live) * SLOT - 1)
                    else
                        entries = call('GETRANGE', kn, HEAD + from * SLOT, HEAD + cap * SLOT - 1)
                            .. call('GETRANGE', kn, HEAD, HEAD + (from + live - cap) * SLOT - 1)
                    end
                    if #entries < live * SLOT then
                        entries = entries .. rep('\0', live * SLOT - #entries)
                    end
                    head, oldest = live % capacity, sunpack('>I6', entries)
                    call('SET', kn, spack(HEADER, head, live, newest, oldest, capacity) .. entries, 'PX',
                        format('%d', max(newest, now_ms) - now_ms + window))
                end
                cap = capacity
            end
            if live == 0 then
                newest, oldest = 0, 0
            end
            -- entries are dated at least the newest (a clock stepped back, a slot held ahead by a waiting call of a
            -- script of its own shape), so the ring stays in time order; what is live is counted at Redis's time
            local now = max(now_ms, newest)
            if not entry and (live > 0 and now_ms - oldest >= window or live + cost > limit) then
                entry, still_live, write, settle = ring_entries(SLOT)
            end
            if kn == kept and run_count > 0 and (live > 0 and now_ms - oldest >= window or live + cost > limit) then
                write(kept, HEAD, cap, run_first, run_count, spack('>I6', run_now)) -- before entries are read
                run_count = 0
            end
            local moved = false -- whether the oldest live entry is another than the header says
            if live > 0 and now_ms - oldest >= window then
                local was = oldest
                live, oldest = still_live(kn, HEAD, head, cap, live, oldest, window, now_ms)
                moved = oldest ~= was
            end
            local reset = live > 0 and newest + window - now_ms or 0
            if cost == 0 then
                r[b + ALLOWED], r[b + REMAINING], r[b + RESET], r[b + RETRY] = 1, limit - live, reset, 0
            elseif live + cost > limit then
                -- the oldest live entries must leave until the cost fits: the last of them is the
                -- (live + cost - limit)-th oldest live entry, at logical index cap - limit + cost - 1; counted from
                -- now_ms, the time the caller sees
                local needed = entry(kn, HEAD, head, cap, cap - limit + cost - 1)
                r[b + ALLOWED], r[b + REMAINING], r[b + RESET], r[b + RETRY] =
                    0, limit - live, reset, needed + window - now_ms
            else
                r[b + ALLOWED], r[b + REMAINING], r[b + RESET], r[b + RETRY],
                r[b + SW_HEAD], r[b + SW_NOW], r[b + SW_LIVE], r[b + SW_OLDEST], r[b + SW_CAP], r[b + SW_MOVED] =
                    1, limit - live - cost, window, 0, head, now, live, oldest, cap, moved
            end
        elseif g == 2 or g == 5 then
            -- Fixed window: a counter that expires `window` ms after the window's first admitted call; a calendar
            -- quota's expires at its period's end (a counter that expires before the period starts is the last one's)
            local count = tonumber(call('GET', kn) or '0')
            local ttl, slack = window, 2
            local fresh = true
            if g == 5 then
                -- the period's end, as the period's start tells a counter of the period before (it expired then)
                ttl, slack = p[PERIOD_END] - now_ms, 0
                if count ~= 0 then -- below zero after a credit
                    -- PTTL says 0 for a key that has less than a millisecond left, which the script still sees (Redis
                    -- checks expiry at the script's start): that counter is the current period's until it ends
                    local pttl = call('PTTL', kn)
                    fresh = not (pttl >= 0 and now_ms + pttl > p[PERIOD_START])
                    count = fresh and 0 or count
                end
            elseif count ~= 0 then
                local pttl = call('PTTL', kn)
                if pttl >= 0 then
                    ttl = pttl
                    fresh = false
                end -- a counter without expiry cannot come from us: give it one on the next write
            end
            -- Redis deletes a key one millisecond after its PTTL reaches 0, and PTTL may be read in the millisecond
            -- after now_ms (the decision time the caller sees): 2 ms more, so that waiting the answer always suffices
            -- (a calendar quota's end is not read from the counter: it is the period's)
            if count + cost > limit then
                r[b + ALLOWED], r[b + REMAINING], r[b + RESET], r[b + RETRY] =
                    0, limit - count, ttl + slack, ttl + slack
            else
                r[b + ALLOWED], r[b + REMAINING], r[b + RESET], r[b + RETRY],
                r[b + FW_COUNT], r[b + FW_TTL], r[b + FW_FRESH] =
                    1, limit - count - cost, ttl + slack, 0, count, ttl, fresh
            end
        elseif g == 3 then
            -- Token bucket as GCRA: one theoretical arrival time (TAT, epoch microseconds) per key. Waits are counted
            -- from now_ms, the decision time the caller sees, and rounded up to whole ms, so that the decision time
            -- plus the wait is never before the moment the call can succeed.
            local capacity = p[CAPACITY] -- a share's ceiling (limit) keeps the rest of the budget's bucket for others
            local interval = window * 1000 / capacity
            local burst = capacity == limit and window * 1000 or limit * interval
            local tat = max(tonumber(call('GET', kn) or '0'), now_us)
            local new_tat = tat + cost * interval
            local allow_at = new_tat - burst
            if now_us < allow_at then
                r[b + ALLOWED], r[b + REMAINING], r[b + RESET], r[b + RETRY] =
                    0, floor((now_us + burst - tat) / interval),
                    ceil(tat / 1000) - now_ms, ceil(allow_at / 1000) - now_ms
            else
                r[b + ALLOWED], r[b + REMAINING], r[b + RESET], r[b + RETRY], r[b + TB_TAT] =
                    1, floor((now_us + burst - new_tat) / interval), ceil(new_tat / 1000) - now_ms, 0, new_tat
            end
        else
            -- Several sliding windows of one identifier in one ring (ring.lua): one header, a live count per window
            local n, base = p[SEVERAL_N], p[SEVERAL_BASE]
            local s = several and several[kn]
            if not s then
                local h = call('GETRANGE', kn, '0', p[SEVERAL_LAST])
                s = {0, 0, 0, false, sunpack(p[SEVERAL_FORMAT], #h >= base and h or rep('\0', base))} -- missing: zeros
                if s[S_CAP] == 0 then
                    s[S_CAP] = p[SEVERAL_LARGEST] -- a new ring (the spec names every limit: the capacity never changes)
                end
                several = several or {}
                several[kn] = s
            end
            local head, cap, newest = s[S_HEAD], s[S_CAP], s[S_NEWEST]
            local now = max(now_ms, newest) -- never let a clock step back reopen a window
            local allowed = 1
            found = found or {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}
            r[b + SEVERAL_FOUND] = at_found
            for j = 1, n do
                local l, w, live, oldest = p[12 + 2 * j], p[13 + 2 * j], s[7 + 2 * j], s[8 + 2 * j]
                if live > 0 and now - oldest >= w or live + cost > l then
                    if not entry then
                        entry, still_live, write, settle = ring_entries(SLOT)
                    end
                    if s[S_COUNT] > 0 then -- before entries are read
                        write(kn, base, cap, s[S_FIRST], s[S_COUNT], spack('>I6', s[S_TIME]))
                        s[S_COUNT] = 0
                    end
                    if live > 0 and now - oldest >= w then
                        live, oldest = still_live(kn, base, head, cap, live, oldest, w, now)
                        s[7 + 2 * j], s[8 + 2 * j] = live, oldest -- true whether or not this call is admitted
                    end
                end
                local reset = live > 0 and newest + w - now or 0
                if cost == 0 then
                    found[at_found + 1], found[at_found + 2], found[at_found + 3], found[at_found + 4] =
                        1, l - live, reset, 0
                elseif live + cost > l then
                    local needed = entry(kn, base, head, cap, cap - l + cost - 1)
                    found[at_found + 1], found[at_found + 2], found[at_found + 3], found[at_found + 4] =
                        0, l - live, reset, needed + w - now_ms
                    allowed = 0
                else
                    found[at_found + 1], found[at_found + 2], found[at_found + 3], found[at_found + 4] =
                        1, l - live - cost, w, 0
                end
                at_found = at_found + 4
            end
            r[b + ALLOWED] = allowed
        end
        local box = r[b + R_BOX]
        if box then
            -- the box holds its end on the decision's clock (its expiry, a few ms later at most, only clears it away)
            local left = tonumber(call('GET', box) or '0') - now_ms
            if left > 0 then -- in the penalty box: refused whatever the count, told the time left
                r[b + ALLOWED], r[b + REMAINING], r[b + RESET], r[b + RETRY], r[b + R_BOX] =
                    0, 0, max(r[b + RESET], left), left, false
            end
        end
        if r[b + ALLOWED] == 0 and p[FLAGS] % 2 == 0 then -- refused by a key that is not a shadow
            out[1] = 0
        end
    end
    local m, position = 2, 0
    for i = 1, call_keys do
        local b = (i - 1) * STRIDE
        local p, kn, cursor = r[b + R_SPEC], r[b + R_KEY], r[b + R_CURSOR]
        local g, cost, flags = p[ALGORITHM], p[COST], p[FLAGS]
        local took = out[1] == 1 and r[b + ALLOWED] == 1 and flags % 8 < 4 -- taken unless check only (8, hold: ignored here)
        if took and cost > 0 then
            if g == 1 then
                local head, now, live, oldest, cap =
                    r[b + SW_HEAD], r[b + SW_NOW], r[b + SW_LIVE], r[b + SW_OLDEST], r[b + SW_CAP]
                local window_text = p[WINDOW_TEXT]
                if not window_text then
                    window_text = format('%d', p[WINDOW])
                    p[WINDOW_TEXT] = window_text
                end
                if kn == kept then
                    -- checked from the kept header: the entries join those kept, which they follow in the ring at the
                    -- same time (else those are written first); the header and expiry wait
                    if run_count > 0 and run_now == now and (run_first + run_count) % cap == head
                        and run_count + cost <= cap then
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
                    local stamp
                    if now == now_ms then
                        now_stamp = now_stamp or spack('>I6', now_ms)
                        stamp = now_stamp
                    else
                        stamp = spack('>I6', now)
                    end
                    local fits = min(cost, cap - head)
                    call('SETRANGE', kn, format('%d', HEAD + head * SLOT), fits == 1 and stamp or rep(stamp, fits))
                    if cost > fits then
                        call('SETRANGE', kn, format('%d', HEAD), rep(stamp, cost - fits))
                    end
                    local header = spack('>I4I4', (head + cost) % cap, live + cost) .. stamp
                    if live == 0 then
                        header = header .. stamp .. spack('>I4', cap) -- the oldest live entry is the first written now
                    elseif r[b + SW_MOVED] then
                        header = header .. spack('>I6', oldest)
                    end -- else the oldest live entry is unchanged: the header's last 10 bytes stay
                    call('SETRANGE', kn, '0', header)
                    call('PEXPIRE', kn, now == now_ms and window_text or format('%d', now - now_ms + p[WINDOW]))
                    kept, kept_dirty, run_count = kn, false, 0
                end
                kept_head, kept_live, kept_newest = (head + cost) % cap, live + cost, now
                kept_oldest, kept_cap = live == 0 and now or oldest, cap
                kept_window = now == now_ms and window_text or format('%d', now - now_ms + p[WINDOW])
            elseif g == 2 or g == 5 then
                if r[b + FW_FRESH] then
                    call('SET', kn, format('%d', r[b + FW_COUNT] + cost), 'PX', format('%d', r[b + FW_TTL]))
                else
                    call('INCRBY', kn, format('%d', cost))
                end
            elseif g == 3 then
                local new_tat = ceil(r[b + TB_TAT])
                call('SET', kn, format('%.0f', new_tat), 'PX', format('%d', max(1, ceil((new_tat - now_us) / 1000))))
            else
                -- several windows: the key's first admission in this script call writes its entries at once (a key
                -- met once, as most are, costs no more); the next ones join the entries not written yet when they
                -- follow them in the ring with the same time (else those are written first); the header waits
                local s = several[kn]
                local n, base = p[SEVERAL_N], p[SEVERAL_BASE]
                local head, cap, count = s[S_HEAD], s[S_CAP], s[S_COUNT]
                local now = max(now_ms, s[S_NEWEST]) -- as the check decided it: nothing changed the header since
                if count > 0 and s[S_TIME] == now and (s[S_FIRST] + count) % cap == head and count + cost <= cap then
                    s[S_COUNT] = count + cost
                else
                    if count > 0 then
                        write(kn, base, cap, s[S_FIRST], count, spack('>I6', s[S_TIME]))
                        s[S_COUNT] = 0
                    end
                    if not entry then
                        entry, still_live, write, settle = ring_entries(SLOT)
                    end
                    if s[S_SPEC] then
                        s[S_FIRST], s[S_COUNT], s[S_TIME] = head, cost, now
                    else
                        now_stamp = now_stamp or spack('>I6', now_ms)
                        write(kn, base, cap, head, cost, now == now_ms and now_stamp or spack('>I6', now))
                    end
                end
                for j = 1, n do
                    local live = s[7 + 2 * j]
                    if live == 0 then
                        s[8 + 2 * j] = now -- the first entry written now
                    end
                    s[7 + 2 * j] = live + cost
                end
                s[S_HEAD], s[S_NEWEST], s[S_SPEC] = (head + cost) % cap, now, p
            end
        end
        if g == 4 then
            local at = r[b + SEVERAL_FOUND]
            for j = 1, p[SEVERAL_N] do
                local allowed = found[at + 1]
                -- a window with room reports what is left after taking the cost; if it took nothing, add the cost back
                local remaining = (allowed == 1 and not took) and (found[at + 2] + cost) or found[at + 2]
                m = answer(out, m, allowed, remaining, found[at + 3], found[at + 4], p[13 + 2 * j])
                at = at + 4
            end
            position = position + p[SEVERAL_N]
        else
            local remaining = (r[b + ALLOWED] == 1 and not took) and (r[b + REMAINING] + cost) or r[b + REMAINING]
            local retry = r[b + RETRY]
            position = position + 1
            local box = r[b + R_BOX]
            if box and r[b + ALLOWED] == 0 and flags % 2 == 0 then
                -- refused by this key: the identifier goes to the penalty box, told its end, and its count starts
                -- afresh once it is out (what this script call kept to write of the key goes too)
                local penalty = p[PENALTY]
                call('SET', box, format('%d', now_ms + penalty), 'PX', format('%d', penalty))
                call('DEL', kn)
                if kept == kn then
                    kept, kept_dirty, run_count = nil, false, 0
                end
                r[b + RESET], retry = penalty, penalty
            end
            if out[1] == 0 and r[b + ALLOWED] == 0 and cursor and flags % 2 == 0 then
                -- staggered advice: the later of the earliest retry and one slot after the last advice handed out, at
                -- most the horizon ahead (never before the earliest retry)
                local slot = ceil(p[WINDOW] * cost / p[LIMIT])
                local last = tonumber(call('GET', cursor) or '0')
                local advice = max(now_ms + retry, last + slot)
                local latest = now_ms + max(retry, p[HORIZON])
                if advice > latest then
                    advice = latest
                    cappedKeys = cappedKeys or {}
                    cappedKeys[#cappedKeys + 1] = position
                end
                call('SET', cursor, format('%d', advice), 'PX', format('%d', max(1, advice - now_ms)))
                retry = advice - now_ms
            end
            m = answer(out, m, r[b + ALLOWED], remaining, r[b + RESET], retry, p[WINDOW])
        end
    end
    if cappedKeys then
        for j = 1, #cappedKeys do
            out[m + j] = cappedKeys[j]
        end
        m = m + #cappedKeys
    end
    -- one bulk string, cheaper to read than a list: the answers joined by commas, made with %d (see ring.lua)
    local f = m <= JOINED_MAX and string.sub(JOINED, 1, 3 * m - 1) or rep('%d,', m - 1) .. '%d'
    replies[c] = format(f, unpack(out, 1, m))
end
if kept_dirty then
    settle(kept, HEAD, kept_cap, run_first, run_count, run_now,
        spack(HEADER, kept_head, kept_live, kept_newest, kept_oldest, kept_cap), kept_window)
end
if several then
    -- the keys of several windows that admitted calls, once each: entries not written yet, expiry, header
    for kn, s in pairs(several) do
        local p = s[S_SPEC]
        if p then
            local n = p[SEVERAL_N]
            if s[S_COUNT] > 0 then
                write(kn, p[SEVERAL_BASE], s[S_CAP], s[S_FIRST], s[S_COUNT], spack('>I6', s[S_TIME]))
            end
            if s[S_NEWEST] >= s[S_RENEW] then
                local longest = p[SEVERAL_LONGEST]
                local slack = ceil(longest / 8)
                call('PEXPIRE', kn, format('%d', longest + slack))
                s[S_RENEW] = s[S_NEWEST] + slack
            end
            for j = 1, n do
                if s[7 + 2 * j] == 0 then
                    s[8 + 2 * j] = 0 -- no live entry in that window
                end
            end
            call('SETRANGE', kn, '0', spack(p[SEVERAL_FORMAT], unpack(s, S_HEAD, 8 + 2 * n)))
        end
    end
end
return replies
