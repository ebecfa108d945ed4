-- Sliding window of one limit: a ring of its last admissions (ring.lua has its format). The header decides, unless
-- entries left the window since the last admission.
--
-- The ring of one window last admitted into (the calls of a batch for one key, a hot key, come one after another) and
-- its header since that admission are kept, so that the key's next call in this script call neither reads nor writes
-- the header: the entries it takes join those kept to be written together (`run_count` from slot `run_first`, all at
-- `run_now`), and `kept_dirty` says that the header and expiry wait too. All of it is written when a call meets another
-- ring of one window, before an entry of the kept ring is read, and at the end. One kept ring for every key of this
-- kind in the call.

--- state
local kept, kept_head, kept_live, kept_newest, kept_oldest, kept_cap, kept_renew, kept_p
local kept_dirty, run_first, run_count, run_now = false, 0, 0, 0

--- settle
        -- the kept ring written: its entries, its header, and its expiry once the admission's eighth has passed
        do
            local due = kept_newest >= kept_renew
            kept_renew = due and kept_newest + kept_p[12] or kept_renew
            settle(kept, HEAD, kept_cap, run_first, run_count, run_now,
                spack(HEADER, kept_head, kept_live, kept_newest, kept_oldest, kept_cap, kept_renew - kept_newest),
                due and format('%d', kept_newest - now_ms + kept_p[3] + kept_p[12]))
        end

--- check
    local head$i, now$i, live$i, oldest$i, cap$i, renew$i = 0, 0, 0, 0, 0, 0 -- renew$i: when the expiry is renewed
    do
        local limit, window, cost, capacity = p$i[2], p$i[3], cost$i, p$i[8] -- capacity: the limit, or a share's budget
        local newest = 0
        if kn$i == kept and kept_cap >= capacity then
            head$i, live$i, newest, oldest$i, cap$i = kept_head, kept_live, kept_newest, kept_oldest, kept_cap
            renew$i = kept_renew
        else
            if kept_dirty then
                ${settle}
            end
            kept, kept_dirty, run_count = nil, false, 0
            local h = call('GETRANGE', kn$i, '0', HEAD_LAST)
            if #h >= HEAD then
                head$i, live$i, newest, oldest$i, cap$i, renew$i = sunpack(HEADER, h)
                renew$i = newest + renew$i
            end
        end
        if cap$i == 0 then
            cap$i = capacity -- a new ring
        elseif cap$i < capacity and cost > 0 then
            ${grow}
            cap$i = capacity
        end
        if live$i == 0 then
            newest, oldest$i = 0, 0
        end
        -- entries are dated at least the newest (a clock that steps back, a slot held ahead), so the ring stays in time
        -- order; what is live is counted at Redis's time, so that an entry dated ahead counts from now on
        now$i = max(now_ms, newest)
        local leaving = live$i > 0 and now_ms - oldest$i >= window
        if not entry and (leaving or live$i + cost > limit) then
            entry, still_live, write, settle = ring_entries(SLOT)
        end
        if kn$i == kept and run_count > 0 and (leaving or live$i + cost > limit) then
            write(kept, HEAD, cap$i, run_first, run_count, spack('>I6', run_now)) -- before entries are read
            run_count = 0
        end
        if leaving then
            live$i, oldest$i = still_live(kn$i, HEAD, head$i, cap$i, live$i, oldest$i, window, now_ms)
        end
        local reset = live$i > 0 and newest + window - now_ms or 0
        if cost == 0 and live$i <= limit then -- a read: reset when the newest entry leaves
            allowed$i, remaining$i, reset$i, retry$i = 1, limit - live$i, reset, 0
        elseif live$i + cost > limit then -- (a read too, of a window counted past a quota that shrank)
            -- the oldest live entries must leave until the cost fits: the last of them is the (live + cost - limit)-th
            -- oldest live entry, at logical index cap - limit + cost - 1; counted from now_ms, the time the caller sees
            local needed = entry(kn$i, HEAD, head$i, cap$i, cap$i - limit + cost - 1)
            allowed$i, remaining$i, reset$i, retry$i = 0, limit - live$i, reset, needed + window - now_ms
        else
            allowed$i, remaining$i, reset$i, retry$i = 1, limit - live$i - cost, window, 0
        end
    end

--- grow
        -- A plan's quota grew beyond the ring's capacity: the ring is rewritten with the new capacity, its live
        -- entries kept in time order from slot 0, so that a caller keeps what was counted and gets the difference
        -- at once. (A quota that shrinks keeps the larger ring: its entries still count, and the next growth finds
        -- them.) Rare (an upgrade), so it may read the live entries. A read (cost 0) reads the ring as it is.
        if live$i == 0 then
            call('DEL', kn$i)
            head$i, newest, oldest$i = 0, 0, 0
        else
            -- the live entries, oldest first, as one string (missing slots as zeros)
            local from = (head$i + cap$i - live$i) % cap$i -- the slot of the oldest of them
            local entries
            if from + live$i <= cap$i then
                entries = call('GETRANGE', kn$i, HEAD + from * SLOT, HEAD + (from + live$i) * SLOT - 1)
            else
                entries = call('GETRANGE', kn$i, HEAD + from * SLOT, HEAD + cap$i * SLOT - 1)
                    .. call('GETRANGE', kn$i, HEAD, HEAD + (from + live$i - cap$i) * SLOT - 1)
            end
            if #entries < live$i * SLOT then
                entries = entries .. rep('\0', live$i * SLOT - #entries)
            end
            head$i, oldest$i = live$i % capacity, sunpack('>I6', entries)
            call('SET', kn$i, spack(HEADER, head$i, live$i, newest, oldest$i, capacity, 0) .. entries, 'PX',
                format('%d', max(newest, now_ms) - now_ms + window))
            renew$i = 0 -- renewed at its next admission
        end

--- commit
    if took$i and cost$i > 0 and held then
        ${held:write}
    elseif took$i and cost$i > 0 then
        local head, now, live, oldest, cap, cost = head$i, now$i, live$i, oldest$i, cap$i, cost$i
        if kn$i == kept then
            -- checked from the kept header: the entries join those kept, which they follow in the ring at the same
            -- time (else those are written first); the header and expiry wait
            if run_count > 0 and run_now == now and (run_first + run_count) % cap == head and run_count + cost <= cap then
                run_count = run_count + cost
            else
                if run_count > 0 then
                    write(kept, HEAD, cap, run_first, run_count, spack('>I6', run_now))
                end
                if not entry then
                    entry, still_live, write, settle = ring_entries(SLOT)
                end
                run_first, run_count, run_now = head, cost, now
            end
            kept_dirty = true
        else
            -- the ring's first admission in this script call (a lone decision's only one): written at once
            local stamp = now == now_ms and now_stamp or spack('>I6', now)
            local fits = min(cost, cap - head)
            call('SETRANGE', kn$i, format('%d', HEAD + head * SLOT), fits == 1 and stamp or rep(stamp, fits))
            if cost > fits then
                call('SETRANGE', kn$i, format('%d', HEAD), rep(stamp, cost - fits))
            end
            -- the expiry is renewed once an eighth of the window has passed since it was (ring.lua): to a window and
            -- an eighth past the newest entry, which a slot held puts ahead of Redis's time
            local due = now >= renew$i
            renew$i = due and now + p$i[12] or renew$i
            call('SETRANGE', kn$i, '0', spack(HEADER, (head + cost) % cap, live + cost, now, live == 0 and now or oldest,
                cap, renew$i - now))
            if due then
                call('PEXPIRE', kn$i, now == now_ms and p$i[7] or format('%d', now - now_ms + p$i[3] + p$i[12]))
            end
            kept, kept_dirty, run_count = kn$i, false, 0
        end
        kept_head, kept_live, kept_newest = (head + cost) % cap, live + cost, now
        kept_oldest, kept_cap, kept_renew, kept_p = live == 0 and now or oldest, cap, renew$i, p$i
    end

--- forget
        if kept == kn$i then
            kept, kept_dirty, run_count = nil, false, 0
        end

--- finish
if kept_dirty then
    ${settle}
end
