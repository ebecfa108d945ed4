-- Steers an adaptive concurrency limit for the whole fleet, or clears its steering: adaptive_acquire.lua reads it when
-- it applies the next window. Kept until cleared (it has no expiry, as operators' overrides of rate limits).
-- KEYS[1] the steering (a hash: pin, min, max)
-- ARGV pin, min, max: each a number, or '' when not steered; all three '' clear the steering
-- Returns {1} if there was a steering before, else {0}
local had = redis.call('EXISTS', KEYS[1])
redis.call('DEL', KEYS[1])
local names = {'pin', 'min', 'max'}
for i = 1, 3 do
    if ARGV[i] ~= '' then
        if not tonumber(ARGV[i]) or tonumber(ARGV[i]) < 1 then
            return redis.error_reply('ratelimit: bad adaptive steering')
        end
        redis.call('HSET', KEYS[1], names[i], ARGV[i])
    end
end
return {had}
