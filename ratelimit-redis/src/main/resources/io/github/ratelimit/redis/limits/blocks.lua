-- The clients blocked by operators, for every instance: one sorted set per key prefix, member "<kind>\n<value>",
-- score the end of the block in ms on the Redis clock. Ended blocks are removed on every call; the set itself expires
-- with its last block.
--
-- KEYS[1]  the set
-- ARGV[1]  'add' (then ARGV[2] the member, ARGV[3] the duration in ms), 'del' (then ARGV[2] the member), or 'list'
--
-- Returns {now ms, then for 'list' each member and its end ms} ('add': {now, end}; 'del': {now, 1 if it was there}).

local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local op = ARGV[1]
if op == 'add' then
    local ms = tonumber(ARGV[3])
    if not ms or ms < 1 or ms ~= math.floor(ms) then
        return redis.error_reply('ratelimit: bad block duration ' .. tostring(ARGV[3]))
    end
    local ends = now + ms
    redis.call('ZADD', KEYS[1], ends, ARGV[2])
    local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
    redis.call('PEXPIRE', KEYS[1], math.max(1, tonumber(last[2]) - now))
    return {now, ends}
elseif op == 'del' then
    return {now, redis.call('ZREM', KEYS[1], ARGV[2])}
elseif op == 'list' then
    local out = {now}
    local all = redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES')
    for i = 1, #all do
        out[#out + 1] = all[i]
    end
    return out
end
return redis.error_reply('ratelimit: bad blocks operation ' .. tostring(op))
