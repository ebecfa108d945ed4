-- Extends a lock's lease (and its description's) only if the caller still owns it and has not released it (a lock
-- released within its minimum hold keeps its owner until the hold ends; a renewal sent before the release and run
-- after it must not extend that). An extension may also set a new minimum hold: a release before it ends keeps the lock
-- taken until then (the description's 'u', in Redis ms; never moved earlier).
-- KEYS[1] the lock, KEYS[2] its description (same hash slot); ARGV owner, lease ms, [minimum hold ms from now]
-- Returns 1 when extended, 0 when the lock is no longer the caller's.
if redis.replicate_commands then
    redis.replicate_commands()
end
if redis.call('GET', KEYS[1]) == ARGV[1] and redis.call('HGET', KEYS[2], 'r') ~= '1' then
    redis.call('PEXPIRE', KEYS[1], ARGV[2])
    redis.call('PEXPIRE', KEYS[2], ARGV[2])
    local hold = tonumber(ARGV[3] or '0')
    if hold > 0 then
        local t = redis.call('TIME')
        local hold_until = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) + hold
        if hold_until > tonumber(redis.call('HGET', KEYS[2], 'u') or '0') then
            redis.call('HSET', KEYS[2], 'u', string.format('%.0f', hold_until))
        end
    end
    return {1}
end
return {0}
