-- Releases a lock only if the caller still owns it (compare-and-delete), and tells waiters; a lock with a minimum hold
-- released before it has passed stays taken (by the same owner) until it has, on Redis's clock.
-- An extension may have set a later minimum hold (the description's 'u', in Redis ms): the later of the two counts.
-- KEYS[1] the lock, KEYS[2] its description (same hash slot); ARGV owner, channel, minimum hold ms, whether an extension
--         set a minimum hold ('1' or '0')
-- Returns 1 when released (or kept to the end of its minimum hold), 0 when the lock had expired or belongs to another
-- holder (left untouched).
if redis.replicate_commands then
    redis.replicate_commands()
end
if redis.call('GET', KEYS[1]) ~= ARGV[1] then
    return {0}
end
local min_hold = tonumber(ARGV[3])
local hold_until = 0
if min_hold > 0 then
    local since = tonumber(redis.call('HGET', KEYS[2], 's') or '')
    if since then
        hold_until = since + min_hold
    end
end
if ARGV[4] == '1' then
    hold_until = math.max(hold_until, tonumber(redis.call('HGET', KEYS[2], 'u') or '0'))
end
if hold_until > 0 then
    local t = redis.call('TIME')
    local left = hold_until - (tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000))
    if left > 0 then
        redis.call('PEXPIRE', KEYS[1], left)
        redis.call('PEXPIRE', KEYS[2], left)
        redis.call('HSET', KEYS[2], 'r', '1') -- released: a renewal still in flight must not extend the hold
        return {1}
    end
end
redis.call('DEL', KEYS[1], KEYS[2])
redis.call('PUBLISH', ARGV[2], KEYS[1])
return {1}
