-- Staggered advice (the "future window"): a refused call is told the later of the earliest time it could be admitted
-- and one slot (window / limit, times its cost) after the advice last handed out for the same key; that advice becomes
-- the cursor, a key that follows the limit's key. So callers refused together are told times one slot apart, and come
-- back spread out. The cursor is one number, whatever the number of refusals, and never an advice beyond the horizon.
-- A key that holds (flag 8: the caller will wait, its horizon is the wait) is advised in `hold`, before the call's keys
-- are written, so that the call may hold the advised slot (decide.lua, hold).

--- answer
    if admitted == 0 and allowed$i == 0 and flags$i % 2 == 0 then
        ${advise}
    end

--- hold
    -- advised before anything is written: whether the call holds a slot depends on every refusing key's advice
    if allowed$i == 0 and flags$i % 2 == 0 then
        ${advise}
        held = held and retry$i <= p$i[6] and max(held, now_ms + retry$i) or nil
    end
    held = held and max(held, now$i) -- never before the key's newest entry

--- advise
        local cursor = KEYS[kb + $cursor]
        local slot = ceil(p$i[3] * cost$i / p$i[2])
        local last = tonumber(call('GET', cursor) or '0')
        local advice = max(now_ms + retry$i, last + slot)
        local latest = now_ms + max(retry$i, p$i[6])
        if advice > latest then -- at most the horizon ahead (never before the earliest retry)
            advice = latest
            capped = capped or {}
            capped[#capped + 1] = $position
        end
        call('SET', cursor, format('%d', advice), 'PX', format('%d', max(1, advice - now_ms)))
        retry$i = advice - now_ms
