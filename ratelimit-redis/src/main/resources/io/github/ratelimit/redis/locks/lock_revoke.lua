-- Releases a lock whoever holds it (an operator freeing a stuck job): wakes the waiters, and tells the holder by its
-- owner on the revocations channel.
-- KEYS[1] the lock, KEYS[2] its description (same hash slot); ARGV release channel, revocation channel
-- Returns 1 when a lock was held and is released, 0 when none was.
local owner = redis.call('GET', KEYS[1])
if not owner then
    return {0}
end
redis.call('DEL', KEYS[1], KEYS[2])
redis.call('PUBLISH', ARGV[1], KEYS[1])
redis.call('PUBLISH', ARGV[2], owner)
return {1}
