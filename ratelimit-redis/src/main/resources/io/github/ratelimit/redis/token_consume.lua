-- Takes one use of a token atomically. The hash stays (with its original expiry) after the last use, so a
-- replay is told apart from an unknown token.
-- KEYS[1]  the token's key
-- Returns {1, uses left, metadata field, value, ...} when consumed, {0} if unknown or expired, {-1} if used up.
local key = KEYS[1]
local state = redis.call('HMGET', key, '#uses', '#used')
if not state[1] then
    return {0}
end
local uses = tonumber(state[1])
if tonumber(state[2]) >= uses then
    return {-1}
end
local used = redis.call('HINCRBY', key, '#used', 1)
local out = {1, uses - used}
local all = redis.call('HGETALL', key)
for i = 1, #all, 2 do
    if string.sub(all[i], 1, 2) == 'm:' then
        out[#out + 1] = string.sub(all[i], 3)
        out[#out + 1] = all[i + 1]
    end
end
return out
