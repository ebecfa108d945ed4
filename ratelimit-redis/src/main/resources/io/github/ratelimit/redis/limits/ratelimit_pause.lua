-- Pauses a limit: every call of it is refused until the pause ends. The limit is a fixed window of limit 1 whose calls
-- cost 0 (decided with the call's other limits, in the same script call): a count of 2 refuses them, told the time
-- left. A pause already in force for longer is kept; a shorter one is extended.
--
-- KEYS[1]  the limit's key
-- ARGV[1]  how long the pause lasts, ms (at least 1)
--
-- Returns {1} when this call started a pause, {2} when it extended one, {0} when one at least as long was in force.

local ms = tonumber(ARGV[1])
if not ms or ms < 1 or ms ~= math.floor(ms) then
    return redis.error_reply('ratelimit: bad pause ' .. tostring(ARGV[1]))
end
local left = redis.call('PTTL', KEYS[1])
if left >= ms then
    return {0}
end
redis.call('SET', KEYS[1], '2', 'PX', ARGV[1])
if left > 0 then
    return {2}
end
return {1}
