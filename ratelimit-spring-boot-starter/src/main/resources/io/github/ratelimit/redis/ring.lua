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

