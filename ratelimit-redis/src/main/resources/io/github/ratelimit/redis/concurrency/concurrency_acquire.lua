-- Takes a slot of a concurrency limit: KEYS[1] a sorted set of holders scored by the end of their lease (Redis time,
-- ms), KEYS[2] the owners given back before they ran (same hash slot). ARGV: max, owner (one per attempt), lease ms.
-- Expired leases are dropped first, so a crashed holder's slot comes back on its own.
-- Returns {1, holders} when taken, {0, holders, ms until the earliest lease ends} when all are taken, {-1, 0, 1} when this
-- attempt was given back before it ran (it takes nothing).
if redis.replicate_commands then
    redis.replicate_commands()
end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local max, owner, lease = tonumber(ARGV[1]), ARGV[2], tonumber(ARGV[3])
if not max or max < 1 or not lease or lease < 1 then
    return redis.error_reply('ratelimit: bad concurrency arguments')
end
if redis.call('SISMEMBER', KEYS[2], owner) == 1 then
    return {-1, 0, 1}
end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local holders = redis.call('ZCARD', KEYS[1])
if holders < max then
    redis.call('ZADD', KEYS[1], now + lease, owner)
    if redis.call('PTTL', KEYS[1]) < lease then
        redis.call('PEXPIRE', KEYS[1], lease)
    end
    return {1, holders + 1}
end
local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return {0, holders, tonumber(first[2]) - now}
