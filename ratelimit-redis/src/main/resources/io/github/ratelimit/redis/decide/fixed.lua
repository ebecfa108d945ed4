-- Fixed window: a counter that expires `window` ms after the window's first admitted call. Its count may be below zero
-- after a credit (ratelimit_credit.lua): more than the limit fits until it ends. Redis deletes a key one millisecond
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
