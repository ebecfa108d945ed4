-- Charges what calls used, known only after they ran (tokens of a model's answer, rows of an export), to every key
-- given, whether or not they have room: a limit can go past zero, and then refuses until it has recovered. Each key's
-- charge is one atomic step, so charges made at once by any number of instances add up exactly.
--
-- KEYS[1]  the charge's marker (its attempt id, in the same slot): a charge sent again after its answer was lost is
--          applied once
-- KEYS     then the keys charged (all in one hash slot), each a key of one window or bucket
-- ARGV[1]  how long the marker lives, ms
-- ARGV     then per key: algorithm (1 sliding window, 2 fixed window, 3 token bucket), limit, window ms, units
--
-- What "past zero" means, per algorithm:
-- - sliding window: the ring keeps the newest `limit` admissions, so the units beyond the room left replace the
--   oldest admissions with the charge's time. A window refuses exactly while the true count of the last window is at
--   the limit or above; what exceeds a whole limit in one window is not owed beyond that window.
-- - fixed window: the count goes above the limit; the window refuses until it ends, and its excess ends with it.
-- - token bucket: the bucket owes the units (its theoretical arrival time moves on), refilled at its rate: a debt of
--   d units refuses for d intervals more. At most 1,000 windows are owed.
--
-- Returns {the number of keys charged}, or {-1} when this attempt's charge was applied before (nothing is charged).

if redis.replicate_commands then
    redis.replicate_commands()
end

local call = redis.call
local ceil, max, min = math.ceil, math.max, math.min

local t = call('TIME')
local now_us = tonumber(t[1]) * 1000000 + tonumber(t[2])
local now_ms = math.floor(now_us / 1000)

if #KEYS < 1 or #ARGV ~= 1 + 4 * (#KEYS - 1) then
    return redis.error_reply('ratelimit: ' .. #ARGV .. ' arguments for ' .. #KEYS .. ' keys')
end
for i = 1, #ARGV do
    if not string.match(ARGV[i], '^%d+$') then
        return redis.error_reply('ratelimit: bad argument ' .. i)
    end
end
if not call('SET', KEYS[1], '1', 'NX', 'PX', ARGV[1]) then
    return {-1}
end

local entry, still_live, write
local charged = 0
for i = 2, #KEYS do
    local kn, a = KEYS[i], 1 + (i - 2) * 4
    local g, limit, window, units = tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2]), tonumber(ARGV[a + 3]),
        tonumber(ARGV[a + 4])
    if units > 0 and limit >= 1 and window >= 1 then
        if g == 1 then
            if not entry then
                entry, still_live, write = ring_entries(SLOT)
            end
            local head, live, newest, oldest, cap = 0, 0, 0, 0, 0
            local h = call('GETRANGE', kn, '0', HEAD_LAST)
            if #h >= HEAD then
                head, live, newest, oldest, cap = sunpack(HEADER, h)
            end
            if cap == 0 then
                cap = limit -- a new ring (a ring written for another quota keeps its capacity)
            end
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
                if live == 0 then
                    oldest = now
                end
                live = live + n
            else
                -- the ring is full: its oldest entry is the one at the head, the next to be replaced
                live, oldest = cap, entry(kn, HEAD, head, cap, 0)
            end
            call('SETRANGE', kn, '0', spack(HEADER, head, live, now, oldest, cap))
            call('PEXPIRE', kn, format('%d', now - now_ms + window))
        elseif g == 2 then
            if call('PTTL', kn) > 0 then
                call('INCRBY', kn, format('%d', units))
            else
                call('SET', kn, format('%d', units), 'PX', format('%d', window))
            end
        elseif g == 3 then
            local interval = window * 1000 / limit
            local tat = max(tonumber(call('GET', kn) or '0'), now_us)
            local new_tat = ceil(min(tat + units * interval, now_us + window * 1000 * 1000))
            call('SET', kn, format('%.0f', new_tat), 'PX', format('%d', max(1, ceil((new_tat - now_us) / 1000))))
        else
            return redis.error_reply('ratelimit: bad algorithm for key ' .. (i - 1))
        end
        charged = charged + 1
    end
end
return {charged}
