-- Releases a lock only if the caller still owns it (compare-and-delete), and tells waiters.
-- KEYS[1] the lock; ARGV owner, channel
-- Returns 1 when released, 0 when the lock had expired or belongs to another holder (left untouched).
if redis.call('GET', KEYS[1]) == ARGV[1] then
    redis.call('DEL', KEYS[1])
    redis.call('PUBLISH', ARGV[2], KEYS[1])
    return {1}
end
return {0}
