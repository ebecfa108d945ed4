-- Several sliding windows of one identifier (one limit name, its windows: per second, minute, hour...) counted in one
-- ring (ring.lua has its format): one header read and one ring written per decision instead of one per window. Always
-- enforced: never a shadow, never only checked, no advice, no penalty, no share.
--
-- Spec text: "4,cost,limit,window,limit,window,..." ($windows windows, in order of window), parsed into an array:
-- [4] cost, [5] flags (0), [6] the largest limit (the ring's capacity), [7] the longest window, [8] the key's expiry
-- (the longest window and an eighth more, as text), [9] that eighth; window j's limit at [8 + 2j], its window at
-- [9 + 2j].
--
-- The header of the key last met at this position in the call is kept in locals, with the entries its admissions took
-- and not written yet (`run_count` entries from slot `run_first`, all at `run_time`): the calls of a batch for one
-- key (a hot key) read the header once and write their entries with one command. It is all written (`flush`) when the
-- position meets another key, before entries of that key are read, when another position meets that key, and at the
-- end. A key met once, as most are, costs one GETRANGE, one SETRANGE of its entry and one of its header.

--- declare
local specs$i = {} -- key $i's specs by text
local kept$i, dirty$i, kspec$i = nil, false, nil -- the key whose header is kept, whether it waits to be written
local head$i, cap$i, newest$i, renew$i = 0, 0, 0, 0
local $[live$i_$j, oldest$i_$j]
local run_first$i, run_count$i, run_time$i = 0, 0, 0
-- the current call's answer per window: allowed, remaining, reset, retry (a table reused by every call: Lua allows a
-- function 200 locals)
local found$i = {$[0, 0, 0, 0]}

--- spec
    local text = ARGV[a + $i]
    if not specs$i[text] then
        local v = {}
        if text and string.match(text, '^4,[%d,]*%d$') and not string.find(text, ',,', 1, true) then
            for part in string.gmatch(string.sub(text, 3), '[^,]+') do
                v[#v + 1] = tonumber(part)
            end
        end
        if #v ~= $values then
            return redis.error_reply('ratelimit: bad arguments for key ' .. ((c - 1) * $positions + $i))
        end
        local cost, largest, longest = v[1], 0, 0
        local p = {4, 0, 0, cost, 0}
        for j = 1, $windows do
            local l, w = v[2 * j], v[2 * j + 1]
            if l < 1 or w < 1 or cost > l then
                return redis.error_reply('ratelimit: bad arguments for key ' .. ((c - 1) * $positions + $i))
            end
            p[8 + 2 * j], p[9 + 2 * j], largest, longest = l, w, max(largest, l), max(longest, w)
        end
        local slack = ceil(longest / 8)
        p[6], p[7], p[8], p[9] = largest, longest, format('%d', longest + slack), slack
        specs$i[text] = p
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
    local p$i = specs$i[ARGV[a + $i]]
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
        local reset = live > 0 and newest$i + w - now$i or 0
        if cost$i == 0 then
            found$i[$(4 * j - 3)], found$i[$(4 * j - 2)], found$i[$(4 * j - 1)], found$i[$(4 * j)] = 1, l - live, reset, 0
        elseif live + cost$i > l then
            local needed = entry(kn$i, $base, head$i, cap$i, cap$i - l + cost$i - 1)
            found$i[$(4 * j - 3)], found$i[$(4 * j - 2)], found$i[$(4 * j - 1)], found$i[$(4 * j)] = 0, l - live, reset, needed + w - now_ms
            allowed$i = 0
        else
            found$i[$(4 * j - 3)], found$i[$(4 * j - 2)], found$i[$(4 * j - 1)], found$i[$(4 * j)] = 1, l - live - cost$i, w, 0
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
    do -- window $j: room reports what is left after taking the cost; if it took nothing, the cost is added back
        local allowed, remaining, reset, retry =
            found$i[$(4 * j - 3)], found$i[$(4 * j - 2)], found$i[$(4 * j - 1)], found$i[$(4 * j)]
        if allowed == 1 and not took$i then
            remaining = remaining + cost$i
        end
        if allowed == 1 and retry == 0 and reset == p$i[$(9 + 2 * j)] and remaining >= 0 then
            out[m + 1], m = remaining, m + 1
        else
            out[m + 1], out[m + 2], out[m + 3], out[m + 4], m = allowed - 2, remaining, reset, retry, m + 4
        end
    end
    --- end each

--- finish
${flush}
