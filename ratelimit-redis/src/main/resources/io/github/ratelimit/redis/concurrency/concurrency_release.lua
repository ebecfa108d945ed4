-- Gives a slot back: removes the owner (and nothing else). Returns 1 if it held one, 0 if its lease had ended.
return {redis.call('ZREM', KEYS[1], ARGV[1])}
