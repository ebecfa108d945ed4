-- Creates a single-use token and its expiry in one atomic step: no token ever exists without a TTL.
-- KEYS[1]  the token's key (built from a SHA-256 of the token; the token itself never reaches Redis)
-- ARGV     ttl ms, uses, then metadata field/value pairs
-- Returns {1, redis time ms} when created, {0} if the key exists (a 192-bit collision: never in practice).
local key = KEYS[1]
if redis.call('EXISTS', key) == 1 then
    return {0}
end
local fields = {'#uses', ARGV[2], '#used', '0'}
for i = 3, #ARGV, 2 do
    fields[#fields + 1] = 'm:' .. ARGV[i]
    fields[#fields + 1] = ARGV[i + 1]
end
redis.call('HSET', key, unpack(fields))
redis.call('PEXPIRE', key, ARGV[1])
local t = redis.call('TIME')
return {1, tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)}
