-- A calendar quota: a count per period (a day, week or month in a time zone, whose starts Java's time zone rules give),
-- a fixed window that ends at its period's end (fixed.lua writes it). A counter that expires before the period starts
-- is the last period's. Its count may be below zero after a credit.

--- check
    -- the period's end, as the period's start tells a counter of the period before (it expired then)
    local count$i, ttl$i, fresh$i = tonumber(call('GET', kn$i) or '0'), p$i[11] - now_ms, true
    if count$i ~= 0 then
        -- PTTL says 0 for a key that has less than a millisecond left, which the script still sees (Redis checks
        -- expiry at the script's start): that counter is the current period's until it ends
        local pttl = call('PTTL', kn$i)
        fresh$i = not (pttl >= 0 and now_ms + pttl > p$i[10])
        count$i = fresh$i and 0 or count$i
    end
    if count$i + cost$i > p$i[2] then
        allowed$i, remaining$i, reset$i, retry$i = 0, p$i[2] - count$i, ttl$i, ttl$i
    else
        allowed$i, remaining$i, reset$i, retry$i = 1, p$i[2] - count$i - cost$i, ttl$i, 0
    end

--- credit
-- As a fixed window's (fixed.lua, credit), for the period from `from` to `to`: a count that expires before the period
-- starts is the last period's, replaced.
local function credit_calendar(kn, from, to, units)
    local pttl = call('PTTL', kn)
    return credit_count(kn, pttl >= 0 and now_ms + pttl > from, to, units)
end
