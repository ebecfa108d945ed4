-- Takes a lock (SET NX PX) and, if taken, draws its fencing token and writes who holds it, in one atomic step.
-- KEYS[1] the lock, KEYS[2] its fencing counter, KEYS[3] the owners given back before they ran, KEYS[4] the lock's
--         description (same hash slot)
-- ARGV    owner (random, >= 128 bits, one per attempt), lease ms, fencing counter ttl ms, name, key, holder
-- Returns {1, fencing token} when taken, {0, remaining lease ms} when busy, {-1, 1} when this attempt was given back
-- before it ran (its caller was told it failed: it takes nothing).
--
-- The fencing token is max(last + 1, Redis time in microseconds): strictly increasing while the counter
-- lives (it is kept for a day after the last acquisition, and survives restarts with persistence), and still
-- larger than every earlier token after it has expired or been lost, as long as the Redis clock goes forward.
-- The description (a hash: owner, token, since in Redis ms, name, key, holder) lives exactly as long as the lock; it is
-- what operators list, and what a release within the lock's minimum hold counts from.
if redis.replicate_commands then
    redis.replicate_commands()
end
if redis.call('SISMEMBER', KEYS[3], ARGV[1]) == 1 then
    return {-1, 1}
end
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
    local t = redis.call('TIME')
    local now_us = tonumber(t[1]) * 1000000 + tonumber(t[2])
    local last = tonumber(redis.call('GET', KEYS[2]) or '0')
    local token = math.max(last + 1, now_us)
    local token_text = string.format('%.0f', token)
    redis.call('SET', KEYS[2], token_text, 'PX', ARGV[3])
    redis.call('DEL', KEYS[4])
    redis.call('HSET', KEYS[4], 'o', ARGV[1], 't', token_text, 's', string.format('%.0f', math.floor(now_us / 1000)),
        'n', ARGV[4], 'k', ARGV[5], 'h', ARGV[6])
    redis.call('PEXPIRE', KEYS[4], ARGV[2])
    return {1, token}
end
return {0, redis.call('PTTL', KEYS[1])}
