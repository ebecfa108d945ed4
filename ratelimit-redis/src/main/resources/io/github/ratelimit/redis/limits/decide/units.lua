-- The frames of the scripts that charge or credit units to limits, assembled as after.lua's are (ring.lua first): each
-- places the section of its name of each algorithm's piece and calls, per key, its algorithm's function.

--- charge
-- Charges what calls used, known only after they ran (tokens of a model's answer, rows of an export), to every key
-- given, whether or not they have room: a limit can go past zero (what that means is each algorithm's charge section),
-- and then refuses until it has recovered. Each key's charge is one atomic step: charges of any number of instances add
-- up exactly.
-- KEYS[1]  the charge's marker (its attempt id, same slot): a charge sent again after its answer was lost counts once
-- KEYS     then the keys charged (all in one hash slot)
-- ARGV[1]  how long the marker lives, ms
-- ARGV     then per key: algorithm (1 sliding window, 2 fixed window, 3 token bucket), limit, window ms, units; or 4
--          (several sliding windows), the number w of windows, 0, units, then per window its limit and window ms
--
-- Returns {the number of keys charged}, or {-1} when this attempt's charge was applied before (nothing is charged).
${after:head}
${arguments}
if not call('SET', KEYS[1], '1', 'NX', 'PX', ARGV[1]) then
    return {-1}
end
local entry, still_live, write = ring_entries(SLOT)
${sliding_after:header}
${sliding_after:charge}
${windows_after:codec}
${windows_after:charge}
${fixed:charge}
${bucket:time}
${bucket:charge}
local charged = 0
a = 2
for i = 2, #KEYS do
    local kn = KEYS[i]
    local g, limit, window, units = tonumber(ARGV[a]), tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2]),
        tonumber(ARGV[a + 3])
    a = a + 4
    if g == 4 then
        local limits, windows = {}, {}
        for j = 1, limit do
            limits[j], windows[j] = tonumber(ARGV[a + 2 * j - 2]), tonumber(ARGV[a + 2 * j - 1])
        end
        a = a + 2 * limit
        charge_windows(kn, limits, windows, units)
    elseif units == 0 or limit < 1 or window < 1 then
        charged = charged - 1
    elseif g == 1 then
        charge_sliding(kn, limit, window, units)
    elseif g == 2 then
        charge_fixed(kn, window, units)
    elseif g == 3 then
        charge_bucket(kn, limit, window, units)
    else
        return redis.error_reply('ratelimit: bad algorithm for key ' .. (i - 1))
    end
    charged = charged + 1
end
return {charged}

--- credit
-- Grants keys units more for their current window or period (a bill paid, a support ticket), atomically per key, as
-- each algorithm's piece says (its credit section). A credit never carries into a later window, and no expiry is made
-- longer than the key's own.
--
-- KEYS[1]  the credit's marker (its attempt id, in the same slot): a credit sent again after its answer was lost is
--          applied once
-- KEYS     then the keys credited (all in one hash slot)
-- ARGV[1]  how long the marker lives, ms
-- ARGV[2]  the units
-- ARGV     then per key one spec, numbers joined by commas: algorithm (1 sliding window, 2 fixed window, 3 token
--          bucket), limit, window ms; 5 (calendar quota), limit, 0, then the starts of four periods (epoch ms; the
--          period is the one of the three they bound that Redis's clock falls in); or 4 (several sliding windows), then
--          the windows in ms
--
-- Returns {the units granted per key}, or {-1} when this attempt's credit was applied before (nothing changes).
${after:head}
if #KEYS < 2 or #ARGV ~= #KEYS + 1 then
    return redis.error_reply('ratelimit: ' .. #ARGV .. ' arguments for ' .. #KEYS .. ' keys')
end
local units = tonumber(ARGV[2])
if not string.match(ARGV[1], '^%d+$') or not string.match(ARGV[2], '^%d+$') or units < 1 then
    return redis.error_reply('ratelimit: bad marker time or units')
end
${specs}
if not call('SET', KEYS[1], '1', 'NX', 'PX', ARGV[1]) then
    return {-1}
end
local entry, still_live = ring_entries(SLOT)
${sliding_after:header}
${sliding_after:credit}
${windows_after:codec}
${windows_after:credit}
${fixed:credit}
${calendar:credit}
${bucket:time}
${bucket:credit}
local granted = {}
for i = 2, #KEYS do
    local kn, v = KEYS[i], specs[i - 1]
    local g = v[1]
    if g == 1 then
        granted[i - 1] = credit_sliding(kn, v[3], units)
    elseif g == 4 then
        granted[i - 1] = credit_windows(kn, {unpack(v, 2)}, units)
    elseif g == 2 then
        granted[i - 1] = credit_fixed(kn, v[3], units)
    elseif g == 5 then
        granted[i - 1] = credit_calendar(kn, v[8], v[9], units)
    else
        granted[i - 1] = credit_bucket(kn, v[2], v[3], units)
    end
end
return granted

--- specs
-- The credit's specs, each checked and read into an array: [1] the algorithm, then its numbers; a calendar quota's
-- current period, by Redis's clock, at [8] and [9].
local specs = {}
for i = 3, #ARGV do
    local v = {}
    for part in string.gmatch(ARGV[i], '%d+') do
        v[#v + 1] = tonumber(part)
    end
    local g = v[1]
    if not string.match(ARGV[i], '^%d+[%d,]*$') or g == 4 and #v < 3
        or (g == 1 or g == 2 or g == 3) and (#v ~= 3 or v[2] < 1 or v[3] < 1) or g == 5 and #v ~= 7
        or not (g and g >= 1 and g <= 5) then
        return redis.error_reply('ratelimit: bad spec ' .. (i - 2))
    end
    if g == 5 then
        for j = 4, 6 do
            if v[j] <= now_ms and now_ms < v[j + 1] then
                v[8], v[9] = v[j], v[j + 1]
            end
        end
        if not v[8] then
            return redis.error_reply('ratelimit: Redis time ' .. now_ms .. ' is in none of the calendar periods given')
        end
    end
    specs[i - 2] = v
end

--- arguments
-- The charge's arguments: numbers, as many as its keys' specs need.
for i = 1, #ARGV do
    if not string.match(ARGV[i], '^%d+$') then
        return redis.error_reply('ratelimit: bad argument ' .. i)
    end
end
local a = 2
for i = 2, #KEYS do
    local g, l = tonumber(ARGV[a] or '1'), tonumber(ARGV[a + 1] or '0')
    a = a + 4 + (g == 4 and 2 * l or 0)
end
if #KEYS < 1 or #ARGV ~= a - 1 then
    return redis.error_reply('ratelimit: ' .. #ARGV .. ' arguments for ' .. #KEYS .. ' keys')
end
