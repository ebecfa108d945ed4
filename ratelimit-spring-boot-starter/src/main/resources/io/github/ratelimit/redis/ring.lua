-- The sliding window's ring, shared by ratelimit.lua and ratelimit_giveback.lua (prepended to each when loaded:
-- a script cannot include another). Defines constants and functions only; it runs no Redis command.
--
-- A ring of the last `limit` admission times, 6 bytes each (big-endian epoch ms), behind a
-- 24-byte header: the head (4 bytes: the slot of the oldest entry, which is also where the next one is
-- written), the number of live entries at the last admission (4 bytes), the newest entry and the oldest live
-- one (6 bytes each), and the ring's capacity (4 bytes: the limit it was written for; a plan's quota may change,
-- and then ratelimit.lua's `resize` rewrites the ring for the new one). Slots beyond the string's length read as 0 ("long ago"), so the string grows only as it
-- is used. Entries are in time order from the head and the live ones are the newest, so a decision reads the
-- header only, unless entries left the window since the last admission: then a galloping search over just
-- those finds the new oldest live entry.
local byte, char, rep = string.byte, string.char, string.rep
local HEAD = 24
local SLOT = 6

-- a 6-byte big-endian time (0 when missing or short) at position `at` of `s`
local function u48(s, at)
    local a, b, c, d, e, f = byte(s, at, at + 5)
    if f == nil then
        return 0
    end
    return ((((a * 256 + b) * 256 + c) * 256 + d) * 256 + e) * 256 + f
end

-- the header's fields: head, live, newest, oldest, capacity (all 0 for a missing header)
local function fields(h)
    local h1, h2, h3, h4, l1, l2, l3, l4, n1, n2, n3, n4, n5, n6, o1, o2, o3, o4, o5, o6, c1, c2, c3, c4 =
        byte(h, 1, HEAD)
    if c4 == nil then
        return 0, 0, 0, 0, 0
    end
    return ((h1 * 256 + h2) * 256 + h3) * 256 + h4, ((l1 * 256 + l2) * 256 + l3) * 256 + l4,
        ((((n1 * 256 + n2) * 256 + n3) * 256 + n4) * 256 + n5) * 256 + n6,
        ((((o1 * 256 + o2) * 256 + o3) * 256 + o4) * 256 + o5) * 256 + o6,
        ((c1 * 256 + c2) * 256 + c3) * 256 + c4
end

-- a 4-byte big-endian integer
local function p32(x)
    local x4 = x % 256
    x = (x - x4) / 256
    local x3 = x % 256
    x = (x - x3) / 256
    local x2 = x % 256
    return char((x - x2) / 256 % 256, x2, x3, x4)
end

-- a time as 6 bytes, big-endian
local function p48(v)
    local f = v % 256
    v = (v - f) / 256
    local e = v % 256
    v = (v - e) / 256
    local d = v % 256
    v = (v - d) / 256
    local c = v % 256
    v = (v - c) / 256
    local b = v % 256
    return char((v - b) / 256 % 256, b, c, d, e, f)
end

-- the i-th oldest entry of a ring of `cap` slots whose entries start at byte `base`, i from 0
local function entry(key, base, head, cap, i)
    local from = base + (head + i) % cap * SLOT
    return u48(redis.call('GETRANGE', key, from, from + SLOT - 1), 1)
end

-- the newest `count` entries of a ring, oldest first, as one string (missing slots as zeros)
local function newest_entries(key, base, head, cap, count)
    local first = (head + cap - count) % cap -- the slot of the oldest of them
    local entries
    if first + count <= cap then
        entries = redis.call('GETRANGE', key, base + first * SLOT, base + (first + count) * SLOT - 1)
    else
        entries = redis.call('GETRANGE', key, base + first * SLOT, base + cap * SLOT - 1)
            .. redis.call('GETRANGE', key, base, base + (first + count - cap) * SLOT - 1)
    end
    if #entries < count * SLOT then
        entries = entries .. rep('\0', count * SLOT - #entries)
    end
    return entries
end

-- Entries left the window since the last admission: the oldest of the `live` ones. Gallops, then bisects, for the
-- first entry still inside (`hi` is always a live entry, value `oldest`, or `cap`: none). Returns the live count, the
-- oldest live entry and whether it is another than `oldest`.
local function still_live(key, base, head, cap, live, oldest, window, now)
    local moved = false
    local first = cap - live -- logical index of the oldest entry that was live
    local lo, hi, step = first + 1, cap, 1
    while lo < cap do
        local probe = math.min(first + step, cap - 1)
        local v = entry(key, base, head, cap, probe)
        if now - v >= window then
            lo = probe + 1
            if probe == cap - 1 then
                break
            end
            step = step * 2
        else
            hi, oldest, moved = probe, v, true
            break
        end
    end
    while lo < hi do
        local mid = math.floor((lo + hi) / 2)
        local v = entry(key, base, head, cap, mid)
        if now - v >= window then
            lo = mid + 1
        else
            hi, oldest, moved = mid, v, true
        end
    end
    return cap - lo, oldest, moved
end

-- Several sliding windows of one identifier (one limit name, several windows) share one ring: every admission is
-- one entry in it, and each window keeps its own live count and oldest live entry. Header, 14 + 10 x windows bytes:
-- head (4), capacity (4: the largest limit), newest (6), then per window its live count (4) and oldest live entry
-- (6). Entries follow. One key instead of one per window: a decision reads one header and writes one ring.
local function multi_header_size(n)
    return 14 + 10 * n
end

-- head, capacity, newest, and the tables of live counts and oldest entries (all 0 for a missing header)
local function multi_fields(h, n)
    local lives, oldests = {}, {}
    if #h < multi_header_size(n) then
        for j = 1, n do
            lives[j], oldests[j] = 0, 0
        end
        return 0, 0, 0, lives, oldests
    end
    for j = 1, n do
        local at = 15 + (j - 1) * 10
        local a, b, c, d = byte(h, at, at + 3)
        lives[j] = ((a * 256 + b) * 256 + c) * 256 + d
        oldests[j] = u48(h, at + 4)
    end
    local h1, h2, h3, h4, c1, c2, c3, c4 = byte(h, 1, 8)
    return ((h1 * 256 + h2) * 256 + h3) * 256 + h4, ((c1 * 256 + c2) * 256 + c3) * 256 + c4, u48(h, 9), lives,
        oldests
end

-- the header for these fields
local function multi_header(head, cap, newest, lives, oldests, n)
    local parts = {p32(head), p32(cap), p48(newest)}
    for j = 1, n do
        parts[#parts + 1] = p32(lives[j])
        parts[#parts + 1] = p48(lives[j] > 0 and oldests[j] or 0)
    end
    return table.concat(parts)
end
