-- Gives back the use one attempt took, if it took one; idempotent. An attempt that has not run yet (its answer is
-- lost and it still waits in a buffer) is cancelled: when it runs, it takes nothing. Never gives back a use another
-- attempt took.
-- KEYS[1]  the token's key
-- ARGV[1]  the attempt id
-- Returns {1} when the attempt's use was given back, {0} when it had taken none (or the token is gone).
local key = KEYS[1]
if redis.call('EXISTS', key) == 0 then
    return {0}
end
if redis.call('HDEL', key, 'a:' .. ARGV[1]) == 1 then
    redis.call('HINCRBY', key, '#used', -1)
    return {1}
end
redis.call('HSET', key, 'x:' .. ARGV[1], 1)
return {0}
