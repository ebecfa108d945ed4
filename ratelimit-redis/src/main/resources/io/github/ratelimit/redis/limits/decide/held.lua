-- A slot held by a refused call that will wait (decide.lua, hold) on a sliding window (sliding.lua): the call's entries
-- are written at once, dated at the slot, in the place of the ring's oldest entries.

--- write
        -- The call holds a slot at `held` (decide.lua): the cost is taken now, dated then, in the place of the oldest
        -- entries. Where those are still live, each is replaced by one at least a window later (the slot is never
        -- before the earliest time the cost fits), so no count falls: the ring counts the slot from now on, and as an
        -- admission from its time. Written at once; a ring kept for the batch is written first and read again after.
        if kept_dirty then
            ${sliding:settle}
        end
        kept, kept_dirty, run_count = nil, false, 0
        if not entry then
            entry, still_live, write, settle = ring_entries(SLOT)
        end
        local head, live, oldest, cap, cost = head$i, live$i, oldest$i, cap$i, cost$i
        if live + cost > cap then -- live entries are replaced: the oldest live one is then the one after them
            oldest, live = cost < cap and entry(kn$i, HEAD, head, cap, cost) or held, cap
        else
            oldest, live = live == 0 and held or oldest, live + cost
        end
        write(kn$i, HEAD, cap, head, cost, spack('>I6', held))
        call('SETRANGE', kn$i, '0', spack(HEADER, (head + cost) % cap, live, held, oldest, cap, p$i[12]))
        call('PEXPIRE', kn$i, format('%d', held - now_ms + p$i[3] + p$i[12])) -- renewed: ring.lua

--- release
-- The slot's caller gave up before it came: the call's entries, dated at the slot, are dated again as early as the ring
-- allows without lowering any count: at the entry before them, or a window before the slot (each entry they replaced
-- was at least that old), whichever is later. The ring stays in time order, and the slot is free for others again from
-- then plus a window instead of from the slot plus a window. Nothing changes where the entries are not there (the key
-- was reset) or once the slot has come.
local function release_held(key, window, cost)
    local head, live, newest, oldest, cap = ring_header(key)
    if not head then
        return 0
    end
    local first = cap - live -- logical index of the oldest live entry
    local top, n, i = taken(key, HEAD, head, cap, first, held, cost)
    if n ~= cost then
        return 0
    end
    local dated = i >= first and max(held - window, entry(key, HEAD, head, cap, i)) or held - window
    for j = top - n + 1, top do
        write(key, HEAD, cap, (head + j) % cap, 1, spack('>I6', dated))
    end
    newest = top == cap - 1 and dated or newest
    oldest = i < first and dated or oldest -- they were the oldest live entries
    call('SETRANGE', key, '0', spack(HEADER, head, live, newest, oldest, cap, 0)) -- expiry renewed at the next admission
    return 1
end
