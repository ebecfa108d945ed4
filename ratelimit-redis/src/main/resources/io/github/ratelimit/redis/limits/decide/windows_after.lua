-- Several sliding windows of one identifier in one ring (windows.lua) after its decision: its header read and written
-- whole (codec), a call given back, and the units of a credit or a charge. Each section defines the function its script
-- calls (after.lua, units.lua).

--- codec
-- The header of a key of n windows read as one flat table: [1] head, [2] capacity, [3] newest, [4] renewal time, then
-- window j's live count at [3 + 2j] and its oldest live entry at [4 + 2j]; nil for a missing header. And its size.
local function windows_read(kn, n)
    local size = 20 + 10 * n
    local h = call('GETRANGE', kn, '0', string.format('%d', size - 1))
    if #h < size then
        return nil, size
    end
    return {struct.unpack('>I4I4I6I6' .. string.rep('I4I6', n), h)}, size
end

-- writes the header of a flat table (an oldest entry is written as 0 where its window has none live)
local function windows_write(kn, s, n)
    for j = 1, n do
        s[4 + 2 * j] = s[3 + 2 * j] > 0 and s[4 + 2 * j] or 0
    end
    call('SETRANGE', kn, '0', struct.pack('>I4I4I6I6' .. string.rep('I4I6', n), unpack(s, 1, 4 + 2 * n)))
end

--- giveback
-- The call's entries are taken out once (sliding.lua, take_out), and each window that counted them counts `cost` fewer.
local function give_back_windows(key, windows, cost)
    local n, counted = #windows, false
    for j = 1, n do
        counted = counted or now_ms - taken_at < windows[j]
    end
    local s, base = windows_read(key, n)
    if not counted or not s or s[2] == 0 then
        return 0
    end
    local head, cap, most, first = s[1], s[2], 0, nil
    for j = 1, n do
        most = max(most, s[3 + 2 * j])
    end
    first, head = take_out(key, base, head, cap, cap - most, cost)
    if not first then
        return 0
    end
    local left = 0
    for j = 1, n do
        if first >= cap - s[3 + 2 * j] then -- this window counted the call's entries
            s[3 + 2 * j] = s[3 + 2 * j] - cost
        end
        if s[3 + 2 * j] > 0 then
            s[4 + 2 * j] = entry(key, base, head, cap, cap - s[3 + 2 * j])
        end
        left = max(left, s[3 + 2 * j])
    end
    if left == 0 then
        call('DEL', key)
    else
        s[1], s[3] = head, entry(key, base, head, cap, cap - 1)
        windows_write(key, s, n)
    end
    return 1
end

--- credit
-- The newest counted calls are forgotten from every window, at most what the fullest window holds.
local function credit_windows(kn, windows, units)
    local n = #windows
    local s, size = windows_read(kn, n)
    if not s then
        return 0
    end
    local head, cap, now, most = s[1], s[2], max(now_ms, s[3]), 0
    for j = 1, n do
        if s[3 + 2 * j] > 0 and now - s[4 + 2 * j] >= windows[j] then
            s[3 + 2 * j], s[4 + 2 * j] = still_live(kn, size, head, cap, s[3 + 2 * j], s[4 + 2 * j], windows[j], now)
        end
        most = max(most, s[3 + 2 * j])
    end
    local given = min(units, most)
    if given > 0 then
        s[1] = (head - given) % cap
        for j = 1, n do
            s[3 + 2 * j] = max(0, s[3 + 2 * j] - given)
        end
        s[3] = most > given and entry(kn, size, s[1], cap, cap - 1) or 0
        windows_write(kn, s, n)
    end
    return given
end

--- charge
-- Past zero as for one window (sliding.lua, charge): the units beyond the room of the ring (the largest limit) replace
-- its oldest entries, and each window counts them, at most a whole ring.
local function charge_windows(kn, limits, windows, units)
    local n, longest = #windows, max(unpack(windows))
    local s, size = windows_read(kn, n)
    if not s then
        s = {0, 0, 0, 0}
        for j = 1, n do
            s[3 + 2 * j], s[4 + 2 * j] = 0, 0
        end
    end
    s[2] = s[2] > 0 and s[2] or max(unpack(limits)) -- a new ring: the largest limit
    local head, cap, now = s[1], s[2], max(now_ms, s[3])
    for j = 1, n do -- what is live, read before any entry is replaced
        if s[3 + 2 * j] > 0 and now - s[4 + 2 * j] >= windows[j] then
            s[3 + 2 * j], s[4 + 2 * j] = still_live(kn, size, head, cap, s[3 + 2 * j], s[4 + 2 * j], windows[j], now)
        end
    end
    local c = min(units, cap)
    write(kn, size, cap, head, c, struct.pack('>I6', now))
    s[1], s[3] = (head + c) % cap, now
    for j = 1, n do
        if s[3 + 2 * j] + c <= cap then
            s[3 + 2 * j], s[4 + 2 * j] = s[3 + 2 * j] + c, s[3 + 2 * j] == 0 and now or s[4 + 2 * j]
        else -- every entry counts: the oldest is the one at the head, the next to be replaced
            s[3 + 2 * j], s[4 + 2 * j] = cap, entry(kn, size, s[1], cap, 0)
        end
    end
    local slack = ceil(longest / 8)
    s[4] = now + slack
    windows_write(kn, s, n)
    call('PEXPIRE', kn, string.format('%d', now - now_ms + longest + slack))
end
