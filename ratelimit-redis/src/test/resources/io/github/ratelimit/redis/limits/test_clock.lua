-- The tests' clock, in place of clock.lua in the scripts that a test assembles (TestClock), never in a production
-- script: the test sends one argument more, first, which this piece takes out of ARGV before the script reads its own
-- arguments. It is an epoch ms: Redis's clock as the script reads it stands still there until the test sends another.
local now_ms = tonumber(table.remove(ARGV, 1))
if not now_ms then
    return redis.error_reply('ratelimit test clock: the first argument is not an epoch ms')
end
local now_us = now_ms * 1000
