-- Gives back one use of a token, if it still exists and has a use taken.
-- KEYS[1]  the token's key
-- Returns {1} when a use was given back, {0} otherwise.
local key = KEYS[1]
local used = tonumber(redis.call('HGET', key, '#used') or '0')
if used <= 0 then
    return {0}
end
redis.call('HINCRBY', key, '#used', -1)
return {1}
