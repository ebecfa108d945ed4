-- Takes one use of a token atomically, for one attempt. The hash stays (with its original expiry) after the last use,
-- so a replay is told apart from an unknown token. The attempt is written down with the use it took, so that a use
-- whose answer was lost can be given back by that attempt alone (token_giveback.lua); an attempt given back before it
-- ran takes nothing.
-- KEYS[1]  the token's key
-- ARGV[1]  the attempt id (random, unique per call)
-- Returns {1, uses left, metadata field, value, ...} when consumed, {0} if unknown or expired, {-1} if used up,
-- {-2} if this attempt was given back before it ran.
local key = KEYS[1]
local state = redis.call('HMGET', key, '#uses', '#used', 'x:' .. ARGV[1])
if not state[1] then
    return {0}
end
if state[3] then
    return {-2}
end
local uses = tonumber(state[1])
if tonumber(state[2]) >= uses then
    return {-1}
end
local used = redis.call('HINCRBY', key, '#used', 1)
redis.call('HSET', key, 'a:' .. ARGV[1], 1)
local out = {1, uses - used}
local all = redis.call('HGETALL', key)
for i = 1, #all, 2 do
    if string.sub(all[i], 1, 2) == 'm:' then
        out[#out + 1] = string.sub(all[i], 3)
        out[#out + 1] = all[i + 1]
    end
end
return out
