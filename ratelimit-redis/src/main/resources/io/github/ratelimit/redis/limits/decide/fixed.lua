-- Fixed window: a counter that expires `window` ms after the window's first admitted call. Its count may be below zero
-- after a credit (its credit section): more than the limit fits until it ends. Redis deletes a key one millisecond
-- after its PTTL reaches 0, and PTTL may be read in the millisecond after now_ms (the decision time the caller sees):
-- a reset is told 2 ms later, so that waiting the answer always suffices.

--- check
    local count$i, ttl$i, fresh$i = tonumber(call('GET', kn$i) or '0'), p$i[3], true
    if count$i ~= 0 then
        local pttl = call('PTTL', kn$i)
        if pttl >= 0 then
            ttl$i, fresh$i = pttl, false
        end -- a counter without expiry cannot come from us: give it one on the next write
    end
    if count$i + cost$i > p$i[2] then
        allowed$i, remaining$i, reset$i, retry$i = 0, p$i[2] - count$i, ttl$i + 2, ttl$i + 2
    else
        allowed$i, remaining$i, reset$i, retry$i = 1, p$i[2] - count$i - cost$i, ttl$i + 2, 0
    end

--- commit
    if took$i and cost$i > 0 then
        if fresh$i then
            call('SET', kn$i, format('%d', count$i + cost$i), 'PX', format('%d', ttl$i))
        else
            call('INCRBY', kn$i, format('%d', cost$i))
        end
    end

--- giveback
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

--- credit
-- The count goes down by the units until `ends` (ms), below zero if need be, so that more than the limit may be taken
-- until the window ends; a key without a count starts a window from now. (A count without expiry, which cannot come
-- from us, gets one.)
local function credit_count(kn, current, ends, units)
    if current then
        call('DECRBY', kn, string.format('%d', units))
        if call('PTTL', kn) < 0 then
            call('PEXPIRE', kn, string.format('%d', max(1, ends - now_ms)))
        end
    else
        call('SET', kn, string.format('%d', -units), 'PX', string.format('%d', max(1, ends - now_ms)))
    end
    return units
end

local function credit_fixed(kn, window, units)
    local pttl = call('PTTL', kn)
    return credit_count(kn, pttl ~= -2, now_ms + (pttl > 0 and pttl or window), units)
end

--- charge
-- Past zero: the count goes above the limit; the window refuses until it ends, and its excess ends with it.
local function charge_fixed(kn, window, units)
    if call('PTTL', kn) > 0 then
        call('INCRBY', kn, string.format('%d', units))
    else
        call('SET', kn, string.format('%d', units), 'PX', string.format('%d', window))
    end
end
