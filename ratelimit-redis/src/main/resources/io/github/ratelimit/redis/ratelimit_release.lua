-- Gives back a slot that a waiting call held (decide/decide.lua, hold) when its caller gave up before the slot came.
-- The call's entries, dated at the slot, are dated again as early as the ring allows without lowering any count: at the
-- entry before them, or a window before the slot (each entry they replaced was at least that old), whichever is later.
-- The ring stays in time order, and the slot is free for others again from then plus a window instead of from the slot
-- plus a window. Nothing changes where the entries are not there (the key was reset) or once the slot has come.
--
-- KEYS      the call's keys that took their cost (rings of one sliding window, in one hash slot)
-- ARGV[1]   the slot's time (Redis ms), as the decision said
-- then per key: its window ms and the call's cost
--
-- Returns {the number of keys given back}.

if redis.replicate_commands then
    redis.replicate_commands()
end

local call = redis.call
local t = call('TIME')
local now_ms = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local held = tonumber(ARGV[1])
if not held or held <= now_ms then
    return {0}
end
local entry, _, write = ring_entries(SLOT)
local taken = ring_taken(entry)

local given = 0
for k = 1, #KEYS do
    local key, window, cost = KEYS[k], tonumber(ARGV[2 * k]), tonumber(ARGV[2 * k + 1])
    local h = call('GETRANGE', key, '0', HEAD_LAST)
    if #h >= HEAD then
        local head, live, newest, oldest, cap = sunpack(HEADER, h)
        local first = cap - live -- logical index of the oldest live entry
        local top, n, i = taken(key, HEAD, head, cap, first, held, cost)
        if n == cost then
            local dated = held - window
            if i >= first then
                dated = math.max(dated, entry(key, HEAD, head, cap, i))
            end
            for j = top - n + 1, top do
                write(key, HEAD, cap, (head + j) % cap, 1, spack('>I6', dated))
            end
            if top == cap - 1 then
                newest = dated
            end
            if i < first then -- they were the oldest live entries
                oldest = dated
            end
            call('SETRANGE', key, '0', spack(HEADER, head, live, newest, oldest, cap))
            given = given + 1
        end
    end
end
return {given}
