-- Leases permits of a leased limit to one instance, and takes back what an instance did not use.
--
-- A leased limit counts per fixed window of this server's clock (window index = floor(now / window)). The key is a
-- hash: w, the window counted; u, the permits leased in it so far; l, how many instances took a lease in it; p, how
-- many took one in the window before. Leases of a window sum to at most the limit, and an instance spends a lease only
-- before its window ends (it times the window from before it asked), so a window never admits more than the limit.
--
-- A grant is the least of: what the instance asks for (its own recent rate until the window's end), the limit's lease
-- ceiling, an even share of the limit among the instances that lease it in this window or did in the last one (so
-- that what instances may hold unused together stays within the limit whatever their number), and what is left.
--
-- KEYS[1]  the leased limit's key (one hash)
-- ARGV[1]  the limit (at least 1)
-- ARGV[2]  the window, ms (at least 1)
-- ARGV[3]  permits wanted (0: only return)
-- ARGV[4]  the lease ceiling (at least 1)
-- ARGV[5]  the window index of this instance's last lease, -1 for none
-- ARGV[6]  permits returned (0: none), unused permits of a lease of window ARGV[7]
-- ARGV[7]  the window index of the returned permits
--
-- Returns {granted, left in the window after the grant, ms to the window's end, window index, permits returned}.

local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local want = tonumber(ARGV[3])
local ceiling = tonumber(ARGV[4])
local last = tonumber(ARGV[5])
local back = tonumber(ARGV[6])
local backWindow = tonumber(ARGV[7])
if not (limit and window and want and ceiling and last and back and backWindow)
        or limit < 1 or window < 1 or want < 0 or ceiling < 1 or back < 0 then
    return redis.error_reply('ratelimit: bad lease arguments')
end

-- in microseconds, and the time to the window's end rounded down: an instance never counts on more than is left
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000000 + tonumber(time[2])
local index = math.floor(now / (window * 1000))
local ends = math.floor(((index + 1) * window * 1000 - now) / 1000)

local state = redis.call('HMGET', KEYS[1], 'w', 'u', 'l', 'p')
local used, lessees, before = 0, 0, 0
if tonumber(state[1]) == index then
    used, lessees, before = tonumber(state[2]) or 0, tonumber(state[3]) or 0, tonumber(state[4]) or 0
elseif tonumber(state[1]) == index - 1 then
    before = tonumber(state[3]) or 0
end

local returned = 0
if back > 0 and backWindow == index then
    returned = math.min(back, used)
    used = used - returned
end

local granted = 0
if want > 0 then
    if last ~= index then
        lessees = lessees + 1
    end
    local left = math.max(0, limit - used)
    local sharing = math.max(lessees, before, 1)
    granted = math.min(want, ceiling, math.ceil(limit / sharing), left)
    used = used + granted
end

redis.call('HSET', KEYS[1], 'w', index, 'u', used, 'l', lessees, 'p', before)
redis.call('PEXPIRE', KEYS[1], ends + 1 + window)
return {granted, math.max(0, limit - used), ends, index, returned}
