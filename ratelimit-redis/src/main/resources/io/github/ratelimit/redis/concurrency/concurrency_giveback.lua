-- Gives back the slot one attempt may have taken, its caller having been told it failed (the answer was lost):
-- removed if that attempt holds it; otherwise the attempt is written down as given back, so that if it has not run
-- yet it takes nothing when it does. Idempotent; never touches another holder's slot.
-- KEYS[1] the holders, KEYS[2] the owners given back before they ran (same hash slot)
-- ARGV    owner, lease ms (how long the note is kept)
-- Returns {1} when the attempt's slot was given back, {0} when it held none.
if redis.call('ZREM', KEYS[1], ARGV[1]) == 1 then
    return {1}
end
redis.call('SADD', KEYS[2], ARGV[1])
if redis.call('PTTL', KEYS[2]) < tonumber(ARGV[2]) then
    redis.call('PEXPIRE', KEYS[2], ARGV[2])
end
return {0}
