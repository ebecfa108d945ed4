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
