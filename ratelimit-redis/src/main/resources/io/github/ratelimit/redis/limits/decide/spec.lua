-- A key's spec of one window, checked and parsed once per script call into an array: [1] algorithm (1 sliding window,
-- 2 fixed window, 3 token bucket, 5 calendar quota), [2] limit, [3] window ms, [4] cost, [5] flags (added: 1 shadow,
-- 2 staggered retry advice, 4 check only: decided and reported, never taken, as for a call counted only if it fails,
-- 8 holds: a refused call may hold a slot within the horizon, see decide.lua),
-- [6] horizon ms (how far ahead staggered advice may reach), [7] a sliding window's expiry (the window and [12], as
-- text), [8] capacity (the limit, or the budget a share of it counts in; the limit is then its ceiling; a sliding
-- window's at most 16,777,215), [9] penalty ms (0: none), for a calendar quota [10] and [11] the start and end of the
-- period Redis's clock falls in, [12] an eighth of the window (at most 16,777,215 ms: ring.lua).
--
-- Text: "algorithm,limit,window,cost,flags,horizon"; a limit with options goes on with "|", its capacity, its penalty
-- ms and, for a calendar quota, the starts of four periods (epoch ms; the period is the one of the three they bound that
-- Redis's clock falls in). Each key's kind (its algorithm, options, advice, penalty) is its script's: a spec of another
-- kind is refused.

--- plain
    do -- its locals end with it: a wide call checks many keys
        local text = ARGV[a + $i]
        if not specs_$kind[text] then
            local g, l, w, q, f, h = string.match(text or '', '^(%d),(%d+),(%d+),(%d+),(%d+),(%d+)$')
            if not g then
                return redis.error_reply('ratelimit: bad arguments for key ' .. ((c - 1) * $positions + $i))
            end
            g, l, w, q, f, h = tonumber(g), tonumber(l), tonumber(w), tonumber(q), tonumber(f), tonumber(h)
            if g ~= $algorithm or l < 1 or w < 1 or q > l or f > 15 or (f % 4 >= 2) ~= $advice or (f >= 8) ~= $hold
                or g == 1 and l > 16777215 then
                return redis.error_reply('ratelimit: bad arguments for key ' .. ((c - 1) * $positions + $i))
            end
            local eighth = min(ceil(w / 8), 16777215)
            specs_$kind[text] = {g, l, w, q, f, h, format('%d', w + eighth), l, 0, 0, 0, eighth}
        end
    end

--- options
    do -- its locals end with it: a wide call checks many keys
        local text = ARGV[a + $i]
        if not specs_$kind[text] then
            local g, l, w, q, f, h, cap, penalty, rest =
                string.match(text or '', '^(%d),(%d+),(%d+),(%d+),(%d+),(%d+)|(%d+),(%d+)(.*)$')
            if not g then
                return redis.error_reply('ratelimit: bad arguments for key ' .. ((c - 1) * $positions + $i))
            end
            g, l, w, q, f, h, cap, penalty =
                tonumber(g), tonumber(l), tonumber(w), tonumber(q), tonumber(f), tonumber(h), tonumber(cap),
                tonumber(penalty)
            if g ~= $algorithm or l < 1 or w < 1 or q > l or f > 15 or cap < l or (f % 4 >= 2) ~= $advice
                or (f >= 8) ~= $hold or (penalty > 0) ~= $penalty or (g == 5) == (rest == '') or g == 1 and cap > 16777215 then
                return redis.error_reply('ratelimit: bad arguments for key ' .. ((c - 1) * $positions + $i))
            end
            local eighth = min(ceil(w / 8), 16777215)
            local p = {g, l, w, q, f, h, format('%d', w + eighth), cap, penalty, nil, nil, eighth} -- [10], [11] below
            if g == 5 then
                local b = {string.match(rest, '^,(%d+),(%d+),(%d+),(%d+)$')}
                if #b ~= 4 then
                    return redis.error_reply('ratelimit: bad arguments for key ' .. ((c - 1) * $positions + $i))
                end
                for j = 1, 3 do
                    local from, to = tonumber(b[j]), tonumber(b[j + 1])
                    if from <= now_ms and now_ms < to then
                        p[10], p[11] = from, to
                    end
                end
                if not p[10] then
                    return redis.error_reply('ratelimit: Redis time ' .. now_ms .. ' is in none of the calendar'
                        .. ' periods given for key ' .. ((c - 1) * $positions + $i) .. ' (the clocks of Redis and the'
                        .. ' application differ by more than a period)')
                end
            end
            specs_$kind[text] = p
        end
    end

--- unknown
    return redis.error_reply('ratelimit: bad arguments for key ' .. ((c - 1) * $positions + $i))

--- key
    local p$i = specs_$kind[ARGV[a + $i]]
    local kn$i, cost$i, flags$i = KEYS[kb + $k], p$i[4], p$i[5]
    local allowed$i, remaining$i, reset$i, retry$i

--- declare
local specs_$kind = {} -- the specs of keys of this kind, by text

--- refused
    if allowed$i == 0 and flags$i % 2 == 0 then -- refused by a key that is not a shadow
        admitted = 0
    end

--- took
    -- taken unless only checked; a call that holds a slot takes it from each enforced key, with room now or not
    local took$i = (allowed$i == 1 and admitted >= 1 or admitted == 2 and flags$i % 2 == 0) and flags$i % 8 < 4

--- answer
    -- a key with room reports what is left after taking the cost; if it took nothing, the cost is added back. The
    -- common answer, room and a whole window to its reset, is the remaining count alone
    if allowed$i == 1 and not took$i then
        remaining$i = remaining$i + cost$i
    end
    if admitted == 2 and took$i then -- the slot held: admitted then, with nothing known left
        allowed$i, remaining$i, reset$i, retry$i = 1, 0, held - now_ms + p$i[3], held - now_ms
    end
    if allowed$i == 1 and retry$i == 0 and reset$i == p$i[3] and remaining$i >= 0 then
        out[m + 1], m = remaining$i, m + 1
    else
        out[m + 1], out[m + 2], out[m + 3], out[m + 4], m = allowed$i - 2, remaining$i, reset$i, retry$i, m + 4
    end
