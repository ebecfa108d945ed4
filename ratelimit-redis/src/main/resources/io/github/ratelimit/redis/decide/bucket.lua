-- Token bucket as GCRA: one theoretical arrival time (TAT, epoch microseconds) per key. Waits are counted from now_ms,
-- the decision time the caller sees, and rounded up to whole ms, so that the decision time plus the wait is never
-- before the moment the call can succeed. A share's ceiling (its limit) keeps the rest of the budget's bucket (its
-- capacity) for others.

--- check
    local tat$i
    do
        local capacity = p$i[8]
        local interval = p$i[3] * 1000 / capacity
        local burst = capacity == p$i[2] and p$i[3] * 1000 or p$i[2] * interval
        local tat = max(tonumber(call('GET', kn$i) or '0'), now_us)
        tat$i = tat + cost$i * interval
        local allow_at = tat$i - burst
        if now_us < allow_at then
            allowed$i, remaining$i, reset$i, retry$i = 0, floor((now_us + burst - tat) / interval),
                ceil(tat / 1000) - now_ms, ceil(allow_at / 1000) - now_ms
        else
            allowed$i, remaining$i, reset$i, retry$i = 1, floor((now_us + burst - tat$i) / interval),
                ceil(tat$i / 1000) - now_ms, 0
        end
    end

--- commit
    if took$i and cost$i > 0 then
        local new_tat = ceil(tat$i)
        call('SET', kn$i, format('%.0f', new_tat), 'PX', format('%d', max(1, ceil((new_tat - now_us) / 1000))))
    end

--- giveback
-- The theoretical arrival time moves back by the call's cost, but only while the call's own take still reaches into the
-- future (its arrival time, at least taken_at + reset - 1 ms, is after now): until then every later take stacked on it,
-- and moving back by exactly its cost is what the bucket would be without it. Later, the bucket may have refilled past
-- it, and nothing is given back.
local function give_back_bucket(key, limit, window, cost, reset)
    local tat = (taken_at + reset - 1) * 1000 >= now_us and tonumber(call('GET', key) or '0') or 0
    if tat <= now_us then
        return 0
    end
    local new_tat = ceil(max(now_us, tat - cost * window * 1000 / limit))
    local ttl = ceil((new_tat - now_us) / 1000)
    if ttl < 1 then
        call('DEL', key)
    else
        call('SET', key, string.format('%.0f', new_tat), 'PX', ttl)
    end
    return 1
end

--- credit
-- The bucket refills by the units, at most until it is full.
local function credit_bucket(kn, limit, window, units)
    local interval = window * 1000 / limit
    local tat = max(tonumber(call('GET', kn) or '0'), now_us)
    local new_tat = max(now_us, tat - units * interval)
    if new_tat <= now_us then
        call('DEL', kn)
    else
        call('SET', kn, string.format('%.0f', new_tat), 'PX',
            string.format('%d', max(1, ceil((new_tat - now_us) / 1000))))
    end
    return min(units, ceil((tat - now_us) / interval))
end

--- charge
-- Past zero: the bucket owes the units (its theoretical arrival time moves on), refilled at its rate: a debt of d units
-- refuses for d intervals more. At most 1,000 windows are owed.
local function charge_bucket(kn, limit, window, units)
    local interval = window * 1000 / limit
    local tat = max(tonumber(call('GET', kn) or '0'), now_us)
    local new_tat = ceil(min(tat + units * interval, now_us + window * 1000 * 1000))
    call('SET', kn, string.format('%.0f', new_tat), 'PX', string.format('%d', max(1, ceil((new_tat - now_us) / 1000))))
end
