-- The frames of the scripts that change a limit after its decision: the give-back (a call one hash slot refused gives
-- back what it took in another) and the release of a held slot; units.lua has the charge and the credit. Each script is
-- assembled (DecisionScripts) from its frame and the section of the same name in each algorithm's piece, which defines
-- that algorithm's function; the frame reads the arguments and calls, per key, the function of its algorithm. ring.lua
-- comes first. `head` opens each.

--- head
if redis.replicate_commands then
    redis.replicate_commands()
end
local call = redis.call
local floor, ceil, max, min, abs = math.floor, math.ceil, math.max, math.min, math.abs
${clock}

--- giveback
-- Gives back what one call took in one hash slot, when the call's part in another slot refused it (a call whose
-- identifiers fall into several slots of a Redis Cluster is decided by one script per slot). What is given back is
-- exactly what that call took, from the same window or bucket, or nothing: it never makes room that the call's own
-- take did not use up, so a give-back can only leave a limit more conservative than it would be without that call.
--
-- KEYS[1]   the give-back's marker (same slot): a give-back runs once per call and slot, however often it is sent
-- KEYS[2..] the call's keys in this slot that took their cost
-- ARGV[1]   the Redis time (ms) of the take, as its reply said
-- ARGV[2]   how long the marker lives, ms (the longest window of the keys)
-- then per key: algorithm (1 sliding window, 2 fixed window or calendar quota, 3 token bucket), limit, window ms, cost,
--           and the reset ms the take reported for it; for a key of several windows: 4, the number w of windows, 0,
--           cost, 0, then the w windows in ms
--
-- Returns {the number of keys given back} (0 when the marker says this give-back already ran).
${head}
if not call('SET', KEYS[1], '1', 'NX', 'PX', tonumber(ARGV[2])) then
    return {0}
end
local taken_at = tonumber(ARGV[1])
local entry = ring_entries(SLOT)
${sliding_after:header}
${sliding_after:taken}
${sliding_after:giveback}
${windows_after:codec}
${windows_after:giveback}
${fixed:giveback}
${bucket:time}
${bucket:giveback}
local given = 0
local a = 3
for k = 2, #KEYS do
    local g, l, w, q, r = tonumber(ARGV[a]), tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2]), tonumber(ARGV[a + 3]),
        tonumber(ARGV[a + 4])
    a = a + 5
    if g == 1 then
        given = given + give_back_sliding(KEYS[k], w, q)
    elseif g == 2 then
        given = given + give_back_fixed(KEYS[k], w, q, r)
    elseif g == 3 then
        given = given + give_back_bucket(KEYS[k], l, w, q, r)
    elseif g == 4 then
        local windows = {}
        for j = 1, l do
            windows[j] = tonumber(ARGV[a + j - 1])
        end
        a = a + l
        given = given + give_back_windows(KEYS[k], windows, q)
    end
end
return {given}

--- release
-- Gives back a slot that a waiting call held (decide.lua, hold) when its caller gave up before the slot came (held.lua
-- says how).
--
-- KEYS      the call's keys that took their cost (rings of one sliding window, in one hash slot)
-- ARGV[1]   the slot's time (Redis ms), as the decision said
-- then per key: its window ms and the call's cost
--
-- Returns {the number of keys given back}.
${head}
local held = tonumber(ARGV[1])
if not held or held <= now_ms then
    return {0}
end
local entry, _, write = ring_entries(SLOT)
${sliding_after:header}
${sliding_after:taken}
${held:release}
local given = 0
for k = 1, #KEYS do
    given = given + release_held(KEYS[k], tonumber(ARGV[2 * k]), tonumber(ARGV[2 * k + 1]))
end
return {given}
