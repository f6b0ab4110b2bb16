package redis

import goredis "github.com/redis/go-redis/v9"

// The Lua scripts, each one atomic step. Times are Redis's own (TIME), so
// replicas whose clocks disagree agree on expiry.

// nowMs is the Lua prelude that sets now to Redis's time in milliseconds.
const nowMs = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
`

// createScript: KEYS sessions zset, session hash; ARGV max, ttl ms, id,
// state, subject, client info, created. 0 when max sessions are live.
var createScript = goredis.NewScript(nowMs + `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[3])
redis.call('HSET', KEYS[2], 'st', ARGV[4], 'subj', ARGV[5], 'info', ARGV[6], 'cr', ARGV[7], 'lvl', '', 'sa', '')
redis.call('PEXPIRE', KEYS[2], ARGV[2])
return 1`)

// touchScript: KEYS hash, subscriptions, events, sessions zset; ARGV ttl
// ms, id, full, slack ms. Nil when the session is gone; else its log
// level, or with full its hash and subscriptions. Without full, a session
// whose expiry was pushed back less than slack ago (its TTL is within slack
// of ttl) is only read: the hot path of a busy session is two commands,
// not six, and its keys expire at most slack early.
var touchScript = goredis.NewScript(`
if ARGV[3] ~= '1' then
  local left = redis.call('PTTL', KEYS[1])
  if left == -2 then return false end
  local gap = tonumber(ARGV[1]) - left
  if left > 0 and gap >= 0 and gap < tonumber(ARGV[4]) then
    return redis.call('HGET', KEYS[1], 'lvl')
  end
end
if redis.call('PEXPIRE', KEYS[1], ARGV[1]) == 0 then return false end
redis.call('PEXPIRE', KEYS[2], ARGV[1])
redis.call('PEXPIRE', KEYS[3], ARGV[1])
` + nowMs + `
redis.call('ZADD', KEYS[4], 'XX', now + tonumber(ARGV[1]), ARGV[2])
if ARGV[3] == '1' then
  return {redis.call('HGETALL', KEYS[1]), redis.call('SMEMBERS', KEYS[2])}
end
return redis.call('HGET', KEYS[1], 'lvl')`)

// updateScript: KEYS hash, subscriptions, the index of the resource
// (un)subscribed; ARGV level, subscribe, unsubscribe, standalone, id. 0
// when the session is gone.
var updateScript = goredis.NewScript(`
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then return 0 end
if ARGV[1] ~= '' then redis.call('HSET', KEYS[1], 'lvl', ARGV[1]) end
if ARGV[4] ~= '' then redis.call('HSET', KEYS[1], 'sa', ARGV[4]) end
if ARGV[2] ~= '' then
  redis.call('SADD', KEYS[2], ARGV[2])
  redis.call('PEXPIRE', KEYS[2], ttl)
  redis.call('SADD', KEYS[3], ARGV[5])
end
if ARGV[3] ~= '' then
  redis.call('SREM', KEYS[2], ARGV[3])
  redis.call('SREM', KEYS[3], ARGV[5])
end
return 1`)

// deleteScript: KEYS hash, subscriptions, events, sessions zset; ARGV id,
// the prefix of the resource indexes. 1 when the session was live.
var deleteScript = goredis.NewScript(`
local live = redis.call('EXISTS', KEYS[1])
for _, u in ipairs(redis.call('SMEMBERS', KEYS[2])) do
  redis.call('SREM', ARGV[2] .. u, ARGV[1])
end
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3])
redis.call('ZREM', KEYS[4], ARGV[1])
return live`)

// appendScript: KEYS events, hash; ARGV max events, stream, message, the
// session's wake channel. The new event's stream id; nil when the session
// is gone (nothing is stored for it).
var appendScript = goredis.NewScript(`
local ttl = redis.call('PTTL', KEYS[2])
if ttl < 0 then return false end
local id = redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[1], '*', 's', ARGV[2], 'm', ARGV[3])
redis.call('PEXPIRE', KEYS[1], ttl)
redis.call('PUBLISH', ARGV[4], '')
return id`)

// replayScript: KEYS events; ARGV the stream id of the last event seen,
// its stream. Nil when that event is not there (never was, or trimmed);
// else the ids and messages of the stream's later events, flattened,
// without the empty ones.
var replayScript = goredis.NewScript(`
local first = redis.call('XRANGE', KEYS[1], ARGV[1], ARGV[1])
if #first == 0 or first[1][2][2] ~= ARGV[2] then return false end
local out = {}
for _, e in ipairs(redis.call('XRANGE', KEYS[1], '(' .. ARGV[1], '+')) do
  local f = e[2]
  if f[2] == ARGV[2] and f[4] ~= '' then
    out[#out + 1] = e[1]
    out[#out + 1] = f[4]
  end
end
return out`)
