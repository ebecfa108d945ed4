-- Token bucket as GCRA: one theoretical arrival time (TAT) per key, a full bucket being `limit` intervals (window /
-- capacity) before it. Waits are counted from now_ms, the decision time the caller sees, and rounded up to whole ms, so
-- that the decision time plus the wait is never before the moment the call can succeed. A share's ceiling (its limit)
-- keeps the rest of the budget's bucket (its capacity) for others.
--
-- The TAT is exact: whole epoch microseconds and a number of capacity-ths of a microsecond more (see `time`), so that
-- `capacity` takes of one unit are exactly one window even where an interval is not a whole number of microseconds
-- (3 per 10 s): a bucket rounded to microseconds would admit 2 of 3 at once.

--- time
-- A time as whole µs `b` and `n` C-ths of a µs more (0 <= n < C), stored as "b" or "b:n". tat_read: the stored time,
-- or `now` if it is not later; tat_add: it plus k intervals of W / C µs (k may be negative); tat_up: the whole µs at or
-- after it; tat_text: as stored; tat_store (after a decision): stored until it passes, or deleted if it has.
local function tat_read(v, now)
    local b, n = string.match(v or '', '^(%d+):?(%d*)$')
    b, n = tonumber(b) or 0, tonumber(n) or 0
    if b > now or b == now and n > 0 then
        return b, n
    end
    return now, 0
end

local function tat_add(b, n, k, W, C)
    local r = W % C
    n = n + k * r
    local carry = math.floor(n / C)
    return b + k * ((W - r) / C) + carry, n - carry * C
end

local function tat_up(b, n)
    return n > 0 and b + 1 or b
end

local function tat_text(b, n)
    return n > 0 and string.format('%d:%d', b, n) or string.format('%d', b)
end

local function tat_store(key, b, n)
    if b < now_us or b == now_us and n == 0 then
        call('DEL', key)
    else
        call('SET', key, tat_text(b, n), 'PX', format('%d', max(1, ceil((tat_up(b, n) - now_us) / 1000))))
    end
end

--- check
    local tat$i, frac$i -- the key's TAT once the cost is taken
    do
        local C, W, l = p$i[8], p$i[3] * 1000, p$i[2]
        local b, n = tat_read(call('GET', kn$i), now_us)
        tat$i, frac$i = tat_add(b, n, cost$i, W, C)
        local fits, part = tat_add(tat$i, frac$i, -l, W, C) -- from when the cost fits: a full bucket before
        if now_us < tat_up(fits, part) then
            local was, wpart = tat_add(b, n, -l, W, C)
            allowed$i, remaining$i, reset$i, retry$i = 0, floor(((now_us - was) * C - wpart) / W),
                ceil(tat_up(b, n) / 1000) - now_ms, ceil(tat_up(fits, part) / 1000) - now_ms
        else
            allowed$i, remaining$i, reset$i, retry$i = 1, floor(((now_us - fits) * C - part) / W),
                ceil(tat_up(tat$i, frac$i) / 1000) - now_ms, 0
        end
    end

--- commit
    if took$i and cost$i > 0 then
        call('SET', kn$i, tat_text(tat$i, frac$i), 'PX',
            format('%d', max(1, ceil((tat_up(tat$i, frac$i) - now_us) / 1000))))
    end

--- giveback
-- The TAT moves back by the call's cost, but only while the call's own take still reaches into the future (its TAT, at
-- least taken_at + reset - 1 ms, is after now): until then every later take stacked on it, and moving back by exactly
-- its cost is what the bucket would be without it. Later, the bucket may have refilled past it, and nothing is given
-- back.
local function give_back_bucket(key, limit, window, cost, reset)
    local b, n = tat_read((taken_at + reset - 1) * 1000 >= now_us and call('GET', key) or nil, now_us)
    if tat_up(b, n) <= now_us then
        return 0
    end
    tat_store(key, tat_add(b, n, -cost, window * 1000, limit))
    return 1
end

--- credit
-- The bucket refills by the units, at most until it is full.
local function credit_bucket(kn, limit, window, units)
    local b, n = tat_read(call('GET', kn), now_us)
    local owed = ceil(((b - now_us) * limit + n) / (window * 1000)) -- intervals until it is full
    tat_store(kn, tat_add(b, n, -units, window * 1000, limit))
    return min(units, owed)
end

--- charge
-- Past zero: the bucket owes the units (its TAT moves on), refilled at its rate: a debt of d units refuses for d
-- intervals more. At most 1,000 windows are owed.
local function charge_bucket(kn, limit, window, units)
    local b, n = tat_read(call('GET', kn), now_us)
    b, n = tat_add(b, n, units, window * 1000, limit)
    if b >= now_us + window * 1000 * 1000 then
        b, n = now_us + window * 1000 * 1000, 0
    end
    tat_store(kn, b, n)
end
