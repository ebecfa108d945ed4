-- The least a decision of 3 sliding windows x 2 identifiers costs Redis with the layout of one ring per
-- identifier (ring.lua, loaded before this): the same commands and the same unpacking and packing, written for exactly
-- this shape, the seed's limits of the benchmark (1,000,000 per second, minute and hour: always admitted) and nothing
-- else: no argument parsed, no refusal, no batch of one key, every key's header written at once. Not a limiter: a
-- measure of what the decision script's generality costs on top of its commands (--script-profile). KEYS: the keys of the
-- calls, two per call; replies as a decision script's.
local call = redis.call
local t = call('TIME')
local now_ms = math.floor((tonumber(t[1]) * 1000000 + tonumber(t[2])) / 1000)
local entry, still_live
local sunpack, spack = struct.unpack, struct.pack
local FORMAT = '>I4I4I6I6I4I6I4I6I4I6'
local LIMIT = 1000000
local out = {}
for k = 1, #KEYS do
    local kn = KEYS[k]
    local h = call('GETRANGE', kn, '0', '49')
    local head, cap, newest, renew, l1, o1, l2, o2, l3, o3 = 0, LIMIT, 0, 0, 0, 0, 0, 0, 0, 0
    if #h >= 50 then
        head, cap, newest, renew, l1, o1, l2, o2, l3, o3 = sunpack(FORMAT, h)
    end
    local now = math.max(now_ms, newest)
    if l1 > 0 and now - o1 >= 1000 then
        if not entry then
            entry, still_live = ring_entries(SLOT)
        end
        l1, o1 = still_live(kn, 50, head, cap, l1, o1, 1000, now)
    end
    if l2 > 0 and now - o2 >= 60000 then
        if not entry then
            entry, still_live = ring_entries(SLOT)
        end
        l2, o2 = still_live(kn, 50, head, cap, l2, o2, 60000, now)
    end
    if l3 > 0 and now - o3 >= 3600000 then
        if not entry then
            entry, still_live = ring_entries(SLOT)
        end
        l3, o3 = still_live(kn, 50, head, cap, l3, o3, 3600000, now)
    end
    call('SETRANGE', kn, string.format('%d', 50 + head * 6), spack('>I6', now))
    if l1 == 0 then
        o1 = now
    end
    if l2 == 0 then
        o2 = now
    end
    if l3 == 0 then
        o3 = now
    end
    if now >= renew then
        call('PEXPIRE', kn, '4050000')
        renew = now + 450000
    end
    call('SETRANGE', kn, '0', spack(FORMAT, (head + 1) % cap, cap, now, renew, l1 + 1, o1, l2 + 1, o2, l3 + 1, o3))
    out[#out + 1] = LIMIT - l1 - 1
    out[#out + 1] = LIMIT - l2 - 1
    out[#out + 1] = LIMIT - l3 - 1
end
local replies = {}
for c = 1, #KEYS / 2 do
    local o = (c - 1) * 6
    replies[c] = string.format('1,%d,%d,%d,%d,%d,%d,%d', now_ms, out[o + 1], out[o + 2], out[o + 3], out[o + 4],
        out[o + 5], out[o + 6])
end
return replies
