-- A sliding window of one limit (sliding.lua) after its decision: a call's entries found again (taken), given back,
-- and the units of a credit or a charge. Each section defines the function its script calls (after.lua, units.lua).

--- taken
-- The entries one call wrote together (`count` of them at time `at`), for the scripts that undo a call's take:
-- searches from the newest entry down to logical index `lowest`; returns the logical index of the newest of them, how
-- many it found (fewer than `count` when they are not all there) and the logical index just below them.
local function taken(key, base, head, cap, lowest, at, count)
    local i = cap - 1
    while i >= lowest and entry(key, base, head, cap, i) > at do
        i = i - 1
    end
    local top, n = i, 0
    while i >= lowest and n < count and entry(key, base, head, cap, i) == at do
        n, i = n + 1, i - 1
    end
    return top, n, i
end

--- header
-- A ring's header as it stands, for the scripts after a decision: head, live, newest, oldest and capacity (the renewal
-- time is left out: they renew nothing, or always), or nothing for a key without one.
local function ring_header(key)
    local h = call('GETRANGE', key, '0', HEAD_LAST)
    if #h >= HEAD then
        return sunpack(HEADER, h)
    end
end

--- giveback
-- The call wrote `cost` entries holding its decision time. They are taken out of the ring (the entries newer than them
-- move down, so the ring stays in time order), unless they already left the window or are not all there (the key was
-- reset, or a clock step made the take write another time): then nothing changes. `lowest` is the logical index of the
-- oldest entry that may be the call's. Returns the logical index the call's oldest entry had and the new head, or nil.
local function take_out(key, base, head, cap, lowest, cost)
    local top, n = taken(key, base, head, cap, lowest, taken_at, cost)
    if n < cost then
        return nil
    end
    for j = top + 1, cap - 1 do -- the newer entries move down by `cost`
        local from = base + (head + j) % cap * SLOT
        call('SETRANGE', key, base + (head + j - cost) % cap * SLOT, call('GETRANGE', key, from, from + SLOT - 1))
    end
    head = (head + cap - cost) % cap -- the last `cost` slots become the oldest ones: empty
    call('SETRANGE', key, base + head * SLOT, rep('\0', SLOT * min(cost, cap - head)))
    if cost > cap - head then
        call('SETRANGE', key, base, rep('\0', SLOT * (cost - (cap - head))))
    end
    return top - cost + 1, head
end

local function give_back_sliding(key, window, cost)
    if now_ms - taken_at >= window then
        return 0 -- the entries no longer count
    end
    local head, live, _, _, cap = ring_header(key)
    if not head then
        return 0 -- they are gone
    end
    local first
    if cap > 0 then
        first, head = take_out(key, HEAD, head, cap, cap - live, cost)
    end
    if not first then
        return 0
    end
    live = live - cost
    if live == 0 then
        call('DEL', key)
    else
        call('SETRANGE', key, 0, spack(HEADER, head, live, entry(key, HEAD, head, cap, cap - 1),
            entry(key, HEAD, head, cap, cap - live), cap, 0)) -- its expiry renewed at the next admission
    end
    return 1
end

--- credit
-- The newest counted calls are forgotten, at most what the window holds: the head moves back over them, so they become
-- the oldest slots, which no decision reads (only live entries are read) and the next admissions overwrite.
local function credit_sliding(kn, window, units)
    local head, live, newest, oldest, cap = ring_header(kn)
    if not head then
        return 0
    end
    if live > 0 and now_ms - oldest >= window then -- what is live is counted at Redis's time
        live, oldest = still_live(kn, HEAD, head, cap, live, oldest, window, now_ms)
    end
    local given = min(units, live)
    if given > 0 then
        head, live = (head - given) % cap, live - given
        if live > 0 then
            newest = entry(kn, HEAD, head, cap, cap - 1)
        else
            newest, oldest = 0, 0
        end
        call('SETRANGE', kn, '0', spack(HEADER, head, live, newest, oldest, cap, 0)) -- renewed at the next admission
    end
    return given
end

--- charge
-- Past zero: the ring keeps the newest `limit` admissions, so the units beyond the room left replace the oldest
-- admissions with the charge's time. A window refuses exactly while the true count of the last window is at the limit
-- or above; what exceeds a whole limit in one window is not owed beyond that window.
local function charge_sliding(kn, limit, window, units)
    local head, live, newest, oldest, cap = ring_header(kn)
    if not head then
        head, live, newest, oldest, cap = 0, 0, 0, 0, 0 -- a new ring
    end
    cap = cap == 0 and limit or cap -- a new ring (a ring written for another quota keeps its capacity)
    if live == 0 then
        newest, oldest = 0, 0
    end
    local now = max(now_ms, newest) -- dated at least the newest: the ring stays in time order
    if live > 0 and now_ms - oldest >= window then -- what is live is counted at Redis's time
        live, oldest = still_live(kn, HEAD, head, cap, live, oldest, window, now_ms)
    end
    local n = min(units, cap)
    write(kn, HEAD, cap, head, n, spack('>I6', now))
    head = (head + n) % cap
    if live + n <= cap then
        oldest, live = live == 0 and now or oldest, live + n
    else -- the ring is full: its oldest entry is the one at the head, the next to be replaced
        live, oldest = cap, entry(kn, HEAD, head, cap, 0)
    end
    local slack = min(ceil(window / 8), 16777215) -- its expiry renewed (ring.lua)
    call('SETRANGE', kn, '0', spack(HEADER, head, live, now, oldest, cap, slack))
    call('PEXPIRE', kn, format('%d', now - now_ms + window + slack))
end
