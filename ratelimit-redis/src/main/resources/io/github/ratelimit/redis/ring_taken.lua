-- Shared by ratelimit_giveback.lua and ratelimit_release.lua (prepended after ring.lua, never to a decision script:
-- a decision makes no more functions than it uses).
-- The entries one call wrote together (`count` of them at time `at`), for the scripts that undo a call's take: made by
-- ring_taken(entry), with `entry` from ring_entries. taken(key, base, head, cap, lowest, at, count) searches from the
-- newest entry down to logical index `lowest` and returns the logical index of the newest of them, how many it found
-- (fewer than `count` when they are not all there) and the logical index just below them.
local function ring_taken(entry)
    return function(key, base, head, cap, lowest, at, count)
        local i = cap - 1
        while i >= lowest and entry(key, base, head, cap, i) > at do
            i = i - 1
        end
        local top, n = i, 0
        while i >= lowest and n < count and entry(key, base, head, cap, i) == at do
            n, i = n + 1, i - 1
        end
        return top, n, i
    end
end
