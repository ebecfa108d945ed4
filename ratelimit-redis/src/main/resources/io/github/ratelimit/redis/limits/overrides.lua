-- Operators' overrides of limits by name, for every instance: one hash per key prefix, field the limit name, value
-- "<limit>,<window ms>,<shadow>" (0 keeps the declared limit or window; shadow 1 on, 0 off, -1 declared). No expiry:
-- an override stays until it is removed.
--
-- KEYS[1]  the hash
-- ARGV[1]  'set' (then ARGV[2] the name, ARGV[3] the value), 'del' (then ARGV[2] the name), or 'list'
--
-- Returns {} for 'set', {1 if it was there} for 'del', {name, value, ...} for 'list'.

local op = ARGV[1]
if op == 'set' then
    if not string.match(ARGV[3], '^%d+,%d+,%-?%d$') then
        return redis.error_reply('ratelimit: bad override ' .. tostring(ARGV[3]))
    end
    redis.call('HSET', KEYS[1], ARGV[2], ARGV[3])
    return {}
elseif op == 'del' then
    return {redis.call('HDEL', KEYS[1], ARGV[2])}
elseif op == 'list' then
    return redis.call('HGETALL', KEYS[1])
end
return redis.error_reply('ratelimit: bad overrides operation ' .. tostring(op))
