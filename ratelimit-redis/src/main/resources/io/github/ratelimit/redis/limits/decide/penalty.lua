-- The penalty box: a key that refuses a call (not a shadow) puts the identifier in its penalty box, a key that holds
-- the box's end and lives as long as the penalty, and deletes its count; until that end, the key refuses every call,
-- told the time left; then the identifier starts afresh. The penalty key follows the key (and its advice cursor).

--- check
    local box$i = KEYS[kb + $box]
    do
        -- the box holds its end on the decision's clock (its expiry, a few ms later at most, only clears it away)
        local left = tonumber(call('GET', box$i) or '0') - now_ms
        if left > 0 then -- in the penalty box: refused whatever the count, told the time left
            allowed$i, remaining$i, reset$i, retry$i, box$i = 0, 0, max(reset$i, left), left, false
        end
    end

--- answer
    if box$i and allowed$i == 0 and flags$i % 2 == 0 then
        -- refused by this key: the identifier goes to the penalty box, told its end, and its count starts afresh once
        -- it is out
        local penalty = p$i[9]
        call('SET', box$i, format('%d', now_ms + penalty), 'PX', format('%d', penalty))
        call('DEL', kn$i)
        $forget
        reset$i, retry$i = penalty, penalty
    end
