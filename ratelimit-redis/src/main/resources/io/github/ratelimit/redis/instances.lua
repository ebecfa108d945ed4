-- The instances that share a key prefix, each announced for a while: one sorted set whose members are the
-- instances' ids and whose scores are when each announcement ends (Redis time, ms). One key, so one hash slot on a
-- cluster; it lives as long as the latest announcement.
--
-- KEYS[1]  the set
-- ARGV[1]  this instance's id
-- ARGV[2]  how long its announcement lasts, ms; 0 when it leaves
--
-- Returns {the number of instances announced now}, this one included unless it leaves.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local lasts = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if lasts > 0 then
    redis.call('ZADD', KEYS[1], now + lasts, ARGV[1])
    redis.call('PEXPIRE', KEYS[1], lasts)
else
    redis.call('ZREM', KEYS[1], ARGV[1])
end
return {redis.call('ZCARD', KEYS[1])}
