-- the decision script of calls of the shape 5o, as DecisionScripts assembles it from src/main/resources/.../limits (SHA-1 c438d7dd4282460456f312d74628df21cc32574b)
-- for: a monthly quota (benchmark; the sample's monthly plan)
-- Written by: ./mvnw -q -pl ratelimit-redis -am test -Dtest=AssembledScriptsTest -Dsurefire.failIfNoSpecifiedTests=false -Dratelimit.scripts.write=true
-- Do not edit: change the pieces, then write these files again. The script starts below this line.
-- ratelimit decision script for calls of the shape 5o (assembled by DecisionScripts from decide/*.lua)
if redis.replicate_commands then
    -- Redis < 5 replicates scripts verbatim unless told otherwise; TIME must not be re-run on replicas.
    redis.replicate_commands()
end
local call = redis.call
local floor, ceil, max, min = math.floor, math.ceil, math.max, math.min
local format, rep, spack, sunpack, tonumber = string.format, string.rep, struct.pack, struct.unpack, tonumber

-- Redis's clock, read once per script call by every script that decides or changes a limit (a decision, a give-back,
-- a charge, a credit, a held slot's release): now_us and now_ms, from Redis's TIME only. A test that moves the clock
-- assembles its scripts with a clock of its own in place of this one (DecisionScripts takes the clock's source); no
-- production script reads the time from an argument.
local t = redis.call('TIME')
local now_us = tonumber(t[1]) * 1000000 + tonumber(t[2])
local now_ms = math.floor(now_us / 1000)
local calls = tonumber(ARGV[1])
if not calls then
    return redis.error_reply('ratelimit: bad number of calls')
end
if #ARGV ~= 1 + calls * (1 + 1) or #KEYS ~= calls * 1 or calls > math.huge then
    return redis.error_reply('ratelimit: ' .. #ARGV .. ' arguments and ' .. #KEYS .. ' keys for ' .. calls
        .. ' calls of 1 keys and 1 key names (at most math.huge calls)')
end
local specs_5o = {} -- the specs of keys of this kind, by text
-- Every call's arguments are checked before anything is written, so a bad one changes nothing. Each key's spec is
-- parsed once per script call into an array, however many calls of the batch share it.
for c = 1, calls do -- for c = 1, calls do (a shape too wide for a loop decides one call: do local c = 1)
    local a = 2 + (c - 1) * (1 + 1)
    if ARGV[a] ~= '1' then
        return redis.error_reply('ratelimit: bad number of keys for call ' .. c)
    end
    do -- its locals end with it: a wide call checks many keys
        local text = ARGV[a + 1]
        if not specs_5o[text] then
            local g, l, w, q, f, h, cap, penalty, rest =
                string.match(text or '', '^(%d),(%d+),(%d+),(%d+),(%d+),(%d+)|(%d+),(%d+)(.*)$')
            if not g then
                return redis.error_reply('ratelimit: bad arguments for key ' .. ((c - 1) * 1 + 1))
            end
            g, l, w, q, f, h, cap, penalty =
                tonumber(g), tonumber(l), tonumber(w), tonumber(q), tonumber(f), tonumber(h), tonumber(cap),
                tonumber(penalty)
            if g ~= 5 or l < 1 or w < 1 or q > l or f > 15 or cap < l or (f % 4 >= 2) ~= false
                or (f >= 8) ~= false or (penalty > 0) ~= false or (g == 5) == (rest == '') or g == 1 and cap > 16777215 then
                return redis.error_reply('ratelimit: bad arguments for key ' .. ((c - 1) * 1 + 1))
            end
            local eighth = min(ceil(w / 8), 16777215)
            local p = {g, l, w, q, f, h, format('%d', w + eighth), cap, penalty, nil, nil, eighth} -- [10], [11] below
            if g == 5 then
                local b = {string.match(rest, '^,(%d+),(%d+),(%d+),(%d+)$')}
                if #b ~= 4 then
                    return redis.error_reply('ratelimit: bad arguments for key ' .. ((c - 1) * 1 + 1))
                end
                for j = 1, 3 do
                    local from, to = tonumber(b[j]), tonumber(b[j + 1])
                    if from <= now_ms and now_ms < to then
                        p[10], p[11] = from, to
                    end
                end
                if not p[10] then
                    return redis.error_reply('ratelimit: Redis time ' .. now_ms .. ' is in none of the calendar'
                        .. ' periods given for key ' .. ((c - 1) * 1 + 1) .. ' (the clocks of Redis and the'
                        .. ' application differ by more than a period)')
                end
            end
            specs_5o[text] = p
        end
    end
end
-- the format of up to 24 integers joined by commas (a call's answers are usually fewer)
local JOINED, JOINED_MAX = '%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d', 24
local COMMON = '%d,%d,%d' -- a call's reply when each of its 1 answers is the common one
local replies = {}
local out = {0, 0, 0} -- the current call's answers (reused: a call's reply is made of the first m)
for c = 1, calls do
    local a, kb = 2 + (c - 1) * (1 + 1), (c - 1) * 1
    local admitted, held, capped = 1, nil, nil -- held: the time of the slot a refused waiting call holds
    local p1 = specs_5o[ARGV[a + 1]]
    local kn1, cost1, flags1 = KEYS[kb + 1], p1[4], p1[5]
    local allowed1, remaining1, reset1, retry1
    -- the period's end, as the period's start tells a counter of the period before (it expired then)
    local count1, ttl1, fresh1 = tonumber(call('GET', kn1) or '0'), p1[11] - now_ms, true
    if count1 ~= 0 then
        -- PTTL says 0 for a key that has less than a millisecond left, which the script still sees (Redis checks
        -- expiry at the script's start): that counter is the current period's until it ends
        local pttl = call('PTTL', kn1)
        fresh1 = not (pttl >= 0 and now_ms + pttl > p1[10])
        count1 = fresh1 and 0 or count1
    end
    if count1 + cost1 > p1[2] then
        allowed1, remaining1, reset1, retry1 = 0, p1[2] - count1, ttl1, ttl1
    else
        allowed1, remaining1, reset1, retry1 = 1, p1[2] - count1 - cost1, ttl1, 0
    end
    if allowed1 == 0 and flags1 % 2 == 0 then -- refused by a key that is not a shadow
        admitted = 0
    end
    -- the call is admitted (1), or holds a slot (2): each key with room takes its cost (unless only checked)
    -- taken unless only checked; a call that holds a slot takes it from each enforced key, with room now or not
    local took1 = (allowed1 == 1 and admitted >= 1 or admitted == 2 and flags1 % 2 == 0) and flags1 % 8 < 4
    if took1 and cost1 > 0 then
        if fresh1 then
            call('SET', kn1, format('%d', count1 + cost1), 'PX', format('%d', ttl1))
        else
            call('INCRBY', kn1, format('%d', cost1))
        end
    end
    out[1], out[2] = admitted, now_ms
    local m = 2
    -- a key with room reports what is left after taking the cost; if it took nothing, the cost is added back. The
    -- common answer, room and a whole window to its reset, is the remaining count alone
    if allowed1 == 1 and not took1 then
        remaining1 = remaining1 + cost1
    end
    if admitted == 2 and took1 then -- the slot held: admitted then, with nothing known left
        allowed1, remaining1, reset1, retry1 = 1, 0, held - now_ms + p1[3], held - now_ms
    end
    if allowed1 == 1 and retry1 == 0 and reset1 == p1[3] and remaining1 >= 0 then
        out[m + 1], m = remaining1, m + 1
    else
        out[m + 1], out[m + 2], out[m + 3], out[m + 4], m = allowed1 - 2, remaining1, reset1, retry1, m + 4
    end
    if capped then
        for j = 1, #capped do
            out[m + j] = capped[j]
        end
        m = m + #capped
    end
    -- one bulk string, cheaper to read than a list: the answers joined by commas, made with %d (see ring.lua)
    if m == 1 + 2 then
        replies[c] = format(COMMON, unpack(out, 1, m))
    else
        local f = m <= JOINED_MAX and string.sub(JOINED, 1, 3 * m - 1) or rep('%d,', m - 1) .. '%d'
        replies[c] = format(f, unpack(out, 1, m))
    end
    -- the call is decided and answered
end
return replies
