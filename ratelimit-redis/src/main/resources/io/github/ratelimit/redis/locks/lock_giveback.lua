-- Gives back a lock one attempt may have taken, its caller having been told it failed (the answer was lost, or no
-- replica acknowledged it): released if that attempt holds it (and waiters told); otherwise the attempt is written
-- down as given back, so that if it has not run yet it takes nothing when it does. Idempotent; never touches a lock
-- another owner holds.
-- KEYS[1] the lock, KEYS[2] the owners given back before they ran, KEYS[3] the lock's description (same hash slot)
-- ARGV    owner, channel, lease ms (how long the note is kept: an attempt later than that is long given up)
-- Returns {1} when the attempt's lock was released, {0} when it held none.
if redis.call('GET', KEYS[1]) == ARGV[1] then
    redis.call('DEL', KEYS[1], KEYS[3])
    redis.call('PUBLISH', ARGV[2], KEYS[1])
    return {1}
end
redis.call('SADD', KEYS[2], ARGV[1])
if redis.call('PTTL', KEYS[2]) < tonumber(ARGV[3]) then
    redis.call('PEXPIRE', KEYS[2], ARGV[3])
end
return {0}
