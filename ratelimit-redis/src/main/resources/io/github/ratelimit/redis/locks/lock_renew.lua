-- Extends a lock's lease (and its description's) only if the caller still owns it and has not released it (a lock
-- released within its minimum hold keeps its owner until the hold ends; a renewal sent before the release and run
-- after it must not extend that).
-- KEYS[1] the lock, KEYS[2] its description (same hash slot); ARGV owner, lease ms
-- Returns 1 when extended, 0 when the lock is no longer the caller's.
if redis.call('GET', KEYS[1]) == ARGV[1] and redis.call('HGET', KEYS[2], 'r') ~= '1' then
    redis.call('PEXPIRE', KEYS[1], ARGV[2])
    redis.call('PEXPIRE', KEYS[2], ARGV[2])
    return {1}
end
return {0}
