-- The frame of every decision script: what runs once per script call, the loop over its calls, and the reply. A
-- decision script is assembled at load (DecisionScripts) for one shape of call: the kind of each of its keys in order
-- (an algorithm, a window count, options), so that each key's code is its kind's own and no branch runs for a kind the
-- call does not have. Concurrent calls of one shape that reach the same Redis together share a script call (a batch);
-- each is still decided on its own, in order. A call is admitted only if every enforced key of it has room, and then
-- each of its keys with room takes its cost; otherwise nothing is written for that call. Shadow keys never decide a
-- call: they take their cost when the call is admitted and they have room, and report when they would have refused.
--
-- ARGV[1]   the number of calls
-- then per call: its number of keys, then a spec per key, numbers joined by commas (see spec.lua and windows.lua)
-- KEYS      the keys of the calls, in order (all in one hash slot); a key with staggered advice is followed by its
--           advice cursor key, a key with a penalty then by its penalty key
--
-- Returns one string per call, integers joined by commas: admitted (1/0; 2: holds a slot, see hold), Redis time ms,
-- then an answer per key (per window of a key of several): its remaining count alone when it has room and resets a
-- whole window from now (the common case), else allowed - 2 (so negative), remaining, reset ms, retry ms; then, only if
-- staggered advice reached the horizon, the positions (from 1) of those answers. Time comes from the Redis server only.
--
-- Sections, in the order the script runs them: head (once), check (each key's spec, every call, before anything is
-- written), call (opens a call), commit (opens the writes of an admitted call), answers, reply, next (the next call),
-- tail.

--- head
if redis.replicate_commands then
    -- Redis < 5 replicates scripts verbatim unless told otherwise; TIME must not be re-run on replicas.
    redis.replicate_commands()
end
local call = redis.call
local floor, ceil, max, min = math.floor, math.ceil, math.max, math.min
local format, rep, spack, sunpack, tonumber = string.format, string.rep, struct.pack, struct.unpack, tonumber

${clock}
local calls = tonumber(ARGV[1])
if not calls then
    return redis.error_reply('ratelimit: bad number of calls')
end
if #ARGV ~= 1 + calls * ($positions + 1) or #KEYS ~= calls * $keys or calls > $most then
    return redis.error_reply('ratelimit: ' .. #ARGV .. ' arguments and ' .. #KEYS .. ' keys for ' .. calls
        .. ' calls of $positions keys and $keys key names (at most $most calls)')
end

--- ring
local entry, still_live, write, settle -- ring_entries(SLOT), made once a call reads entries or keeps entries to write
local now_stamp = spack('>I6', now_ms) -- a ring entry of now_ms

--- check
-- Every call's arguments are checked before anything is written, so a bad one changes nothing. Each key's spec is
-- parsed once per script call into an array, however many calls of the batch share it.
$loop -- for c = 1, calls do (a shape too wide for a loop decides one call: do local c = 1)
    local a = 2 + (c - 1) * ($positions + 1)
    if ARGV[a] ~= '$positions' then
        return redis.error_reply('ratelimit: bad number of keys for call ' .. c)
    end

--- check end
end

--- call
-- the format of up to 24 integers joined by commas (a call's answers are usually fewer)
local JOINED, JOINED_MAX = '%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d', 24
local COMMON = '$common' -- a call's reply when each of its $answers answers is the common one
local replies = {}
local out = {0, 0, 0} -- the current call's answers (reused: a call's reply is made of the first m)
$loop
    local a, kb = 2 + (c - 1) * ($positions + 1), (c - 1) * $keys
    local admitted, held, capped = 1, nil, nil -- held: the time of the slot a refused waiting call holds

--- hold
    -- A refused call that will wait (keys that hold: sliding windows with staggered advice) holds a slot when every key
    -- that refused it was advised a time within its horizon (the caller's wait): the latest of those times, and never
    -- before a key's newest entry, so that each ring stays in time order. Then each of its keys takes its cost dated
    -- then (sliding.lua, hold), and the call is answered admitted (2) with the time to wait: the caller goes on at its
    -- slot without asking again. Otherwise it is refused with that advice.
    if admitted == 0 then
        held = now_ms

--- hold end
        if held then
            admitted = 2
        end
    end

--- commit
    -- the call is admitted (1), or holds a slot (2): each key with room takes its cost (unless only checked)

--- answers
    out[1], out[2] = admitted, now_ms
    local m = 2

--- reply
    if capped then
        for j = 1, #capped do
            out[m + j] = capped[j]
        end
        m = m + #capped
    end
    -- one bulk string, cheaper to read than a list: the answers joined by commas, made with %d (see ring.lua)
    if m == $answers + 2 then
        replies[c] = format(COMMON, unpack(out, 1, m))
    else
        local f = m <= JOINED_MAX and string.sub(JOINED, 1, 3 * m - 1) or rep('%d,', m - 1) .. '%d'
        replies[c] = format(f, unpack(out, 1, m))
    end
    -- the call is decided and answered

--- next
end

--- tail
return replies
