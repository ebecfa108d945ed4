-- Several sliding windows of one identifier (one limit name: per second, minute, hour...) counted in one ring of the
-- entries of ring.lua, behind a header of 20 + 10 x windows bytes: head (4), capacity (4: the largest limit), newest
-- entry (6), the time from which the expiry is renewed (6), then per window its live count (4) and oldest live entry (6).
-- The expiry is the longest window and an eighth, renewed once that eighth has passed. Always enforced: never a shadow
-- or only checked, no advice, no penalty, no share.
--
-- Spec: "4,cost,limit,window,limit,window,..." ($windows windows, in order of window), read into an array: [4] cost,
-- [5] flags (0), [6] the largest limit, [7] the longest window, [8] the expiry (as text), [9] an eighth of the longest
-- window; window j's limit at [8 + 2j], its window at [9 + 2j].
--
-- The header of the key last met at this position is kept in locals, with the entries its admissions took and not
-- written yet (`run_count` from slot `run_first`, at `run_time`): a batch's calls for one key read the header once and
-- write their entries with one command. All is written (`flush`) when the position meets another key, before entries
-- of that key are read, when another position meets that key, and at the end.

--- declare
local kept$i, dirty$i, kspec$i = nil, false, nil -- the key whose header is kept, whether it waits to be written
local head$i, cap$i, newest$i, renew$i = 0, 0, 0, 0
local $[live$i_$j, oldest$i_$j]
local run_first$i, run_count$i, run_time$i = 0, 0, 0
-- the current call's check per window: whether it has room, and for a refusal its remaining count, reset and retry (a
-- table reused by every call: Lua allows a function 200 locals). What has room is answered from the live counts.
local found$i = {$[0, 0, 0, 0]}

--- spec
    do -- its locals end with it: a wide call checks many keys
        local text = ARGV[a + $i]
        if not specs_$kind[text] then
            local v = {}
            for d in string.gmatch(text or '', '%d+') do
                v[#v + 1] = tonumber(d)
            end
            local q, $[l$j, w$j] = unpack(v, 2, $values + 1)
            -- checked whole, then read (Lua's patterns capture at most 32 values: 16 windows are 33)
            if not string.find(text or '', '^4,%d+$cat[,%d+,%d+]$') or $or[l$j < 1 or w$j < 1 or q > l$j] then
                return redis.error_reply('ratelimit: bad arguments for key ' .. ((c - 1) * $positions + $i))
            end
            local longest, slack = max($[w$j]), ceil(max($[w$j]) / 8)
            specs_$kind[text] = {4, 0, 0, q, 0, max($[l$j]), longest, format('%d', longest + slack), slack, $[l$j, w$j]}
        end
    end

--- write_run
            do -- the entries taken and not written yet: one SETRANGE (two when they wrap)
                local stamp = run_time$i == now_ms and now_stamp or spack('>I6', run_time$i)
                local fits = min(run_count$i, cap$i - run_first$i)
                call('SETRANGE', kept$i, format('%d', $base + run_first$i * SLOT), fits == 1 and stamp or rep(stamp, fits))
                if run_count$i > fits then
                    call('SETRANGE', kept$i, '$base', rep(stamp, run_count$i - fits))
                end
                run_count$i = 0
            end

--- flush
        if dirty$i then -- what the kept key's admissions wrote: entries, expiry (renewed once an eighth passed), header
            if run_count$i > 0 then
                ${write_run}
            end
            if newest$i >= renew$i then
                call('PEXPIRE', kept$i, kspec$i[8])
                renew$i = newest$i + kspec$i[9]
            end
            call('SETRANGE', kept$i, '0', spack('$format', head$i, cap$i, newest$i, renew$i,
                $[live$i_$j, live$i_$j > 0 and oldest$i_$j or 0]))
            dirty$i = false
        end

--- check
    local p$i = specs_$kind[ARGV[a + $i]]
    local kn$i, cost$i, allowed$i = KEYS[kb + $k], p$i[4], 1
    if kn$i ~= kept$i then
        ${flush}
        ${others}
        local h = call('GETRANGE', kn$i, '0', '$last')
        if #h >= $base then
            head$i, cap$i, newest$i, renew$i, $[live$i_$j, oldest$i_$j] = sunpack('$format', h)
        else
            head$i, cap$i, newest$i, renew$i, $[live$i_$j, oldest$i_$j] = 0, 0, 0, 0, $[0, 0]
        end
        if cap$i == 0 then
            cap$i = p$i[6] -- a new ring (the spec names every limit: the capacity never changes)
        end
        kept$i, run_count$i = kn$i, 0
    end
    local now$i = max(now_ms, newest$i) -- never let a clock step back reopen a window
    --- each window
    do -- window $j
        local l, w, live, oldest = p$i[$(8 + 2 * j)], p$i[$(9 + 2 * j)], live$i_$j, oldest$i_$j
        local leaving = live > 0 and now$i - oldest >= w
        if leaving or live + cost$i > l then
            if not entry then
                entry, still_live, write, settle = ring_entries(SLOT)
            end
            if run_count$i > 0 then -- before entries are read
                ${write_run}
            end
            if leaving then -- true whether or not this call is admitted
                live, oldest = still_live(kn$i, $base, head$i, cap$i, live, oldest, w, now$i)
                live$i_$j, oldest$i_$j = live, oldest
            end
        end
        if live + cost$i > l then
            -- the oldest live entries must leave until the cost fits: the last of them is the (live + cost - limit)-th
            -- oldest live entry; counted from now_ms, the time the caller sees
            local needed = entry(kn$i, $base, head$i, cap$i, cap$i - l + cost$i - 1)
            found$i[$(4 * j - 3)], found$i[$(4 * j - 2)], found$i[$(4 * j - 1)], found$i[$(4 * j)] =
                0, l - live, newest$i + w - now$i, needed + w - now_ms
            allowed$i = 0
        else
            found$i[$(4 * j - 3)] = 1
        end
    end
    --- end each
    if allowed$i == 0 then
        admitted = 0
    end

--- commit
    local took$i = admitted == 1
    if took$i and cost$i > 0 then
        -- the entries join those not written yet when they follow them in the ring with the same time (else those are
        -- written first); the header waits
        if run_count$i > 0 and run_time$i == now$i and (run_first$i + run_count$i) % cap$i == head$i
            and run_count$i + cost$i <= cap$i then
            run_count$i = run_count$i + cost$i
        else
            if run_count$i > 0 then
                ${write_run}
            end
            run_first$i, run_count$i, run_time$i = head$i, cost$i, now$i
        end
        --- each window
        if live$i_$j == 0 then
            oldest$i_$j = now$i -- the first entry written now
        end
        live$i_$j = live$i_$j + cost$i
        --- end each
        head$i, newest$i, dirty$i, kspec$i = (head$i + cost$i) % cap$i, now$i, true, p$i
    end

--- answer
    --- each window
    if found$i[$(4 * j - 3)] == 1 then
        -- window $j had room: what is left is its limit less its live count (the cost in it if the call took it); the
        -- reset is a whole window for a call that costs, else when its oldest live entry leaves
        local l, w = p$i[$(8 + 2 * j)], p$i[$(9 + 2 * j)]
        local reset = cost$i > 0 and w or live$i_$j > 0 and newest$i + w - now$i or 0
        if reset == w and l >= live$i_$j then
            out[m + 1], m = l - live$i_$j, m + 1
        else
            out[m + 1], out[m + 2], out[m + 3], out[m + 4], m = -1, l - live$i_$j, reset, 0, m + 4
        end
    else
        out[m + 1], out[m + 2], out[m + 3], out[m + 4], m =
            -2, found$i[$(4 * j - 2)], found$i[$(4 * j - 1)], found$i[$(4 * j)], m + 4
    end
    --- end each

--- finish
${flush}
