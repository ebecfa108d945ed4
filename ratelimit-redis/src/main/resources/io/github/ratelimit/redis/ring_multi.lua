-- The codec of a ring of several sliding windows (see ring.lua), prepended after ring.lua to the scripts that meet
-- such a key outside a decision (the script of any shape, the give-back, the credit); a decision script's pieces
-- (decide/windows.lua) read and write its header inline, so that no decision makes these functions.
--
-- Several sliding windows of one identifier (one limit name, several windows) share one ring: every admission is
-- one entry in it, and each window keeps its own live count and oldest live entry. Header, 20 + 10 x windows bytes:
-- head (4), capacity (4: the largest limit), newest (6), the time from which the key's expiry must be renewed (6),
-- then per window its live count (4) and oldest live entry (6). Entries follow. One key instead of one per window: a
-- decision reads one header and writes one ring. The expiry is the longest window and an eighth of it, renewed once
-- that eighth has passed: every admission still leaves at least the longest window, and most admissions need no
-- PEXPIRE.
-- The codec of such a header, made by the scripts that meet such a key (see ring_entries): header_size(n),
-- state(h, n), pack(v, n), fields(h, n), header(head, cap, newest, renew, lives, oldests, n).
local function multi_codec()
    local spack, sunpack = struct.pack, struct.unpack

    local function multi_header_size(n)
        return 20 + 10 * n
    end

    -- the header's format for n windows, made once per script call
    local formats = {}
    local function multi_format(n)
        local format = formats[n]
        if not format then
            format = '>I4I4I6I6' .. string.rep('I4I6', n)
            formats[n] = format
        end
        return format
    end

    -- the header as one flat table: [1] head, [2] capacity, [3] newest, [4] renewal time, then per window j its live
    -- count at [3 + 2j] and its oldest live entry at [4 + 2j] (all 0 for a missing header)
    local function multi_state(h, n)
        if #h < multi_header_size(n) then
            local v = {0, 0, 0, 0}
            for j = 1, n do
                v[3 + 2 * j], v[4 + 2 * j] = 0, 0
            end
            return v
        end
        return {sunpack(multi_format(n), h)}
    end

    -- the header of a flat table (an oldest entry is written as 0 where its window has none live)
    local function multi_pack(v, n)
        for j = 1, n do
            if v[3 + 2 * j] == 0 then
                v[4 + 2 * j] = 0
            end
        end
        return spack(multi_format(n), unpack(v, 1, 4 + 2 * n))
    end

    -- head, capacity, newest, renewal time, and the tables of live counts and oldest entries (all 0 for a missing
    -- header)
    local function multi_fields(h, n)
        local v = multi_state(h, n)
        local lives, oldests = {}, {}
        for j = 1, n do
            lives[j], oldests[j] = v[3 + 2 * j], v[4 + 2 * j]
        end
        return v[1], v[2], v[3], v[4], lives, oldests
    end

    -- the header for these fields
    local function multi_header(head, cap, newest, renew, lives, oldests, n)
        local v = {head, cap, newest, renew}
        for j = 1, n do
            v[3 + 2 * j], v[4 + 2 * j] = lives[j], oldests[j]
        end
        return multi_pack(v, n)
    end

    return {header_size = multi_header_size, state = multi_state, pack = multi_pack, fields = multi_fields,
        header = multi_header}
end
