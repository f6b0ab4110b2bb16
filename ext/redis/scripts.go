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
// ms, id, full, slack ms, the prefix of the resource indexes. Nil when the
// session is gone; else, without full, its log level and how long ago its
// expiry was pushed back (ms, 0 when this run did), or with full its hash
// and subscriptions. Without full, a session whose expiry was pushed back
// less than slack ago (its TTL is within slack of ttl) is only read, and
// its keys expire at most slack early. A refresh also pushes back the
// session's entries in the indexes of the resources it is subscribed to,
// and those indexes' TTLs (keepIndexed). The toucher runs it only when
// its replica has not seen the session refreshed within slack; else it
// reads the log level alone (HGET).
var touchScript = goredis.NewScript(keepIndexed + `
if ARGV[3] ~= '1' then
  local left = redis.call('PTTL', KEYS[1])
  if left == -2 then return false end
  local gap = tonumber(ARGV[1]) - left
  if left > 0 and gap >= 0 and gap < tonumber(ARGV[4]) then
    return {redis.call('HGET', KEYS[1], 'lvl'), gap}
  end
end
if redis.call('PEXPIRE', KEYS[1], ARGV[1]) == 0 then return false end
redis.call('PEXPIRE', KEYS[2], ARGV[1])
redis.call('PEXPIRE', KEYS[3], ARGV[1])
` + nowMs + `
redis.call('ZADD', KEYS[4], 'XX', now + tonumber(ARGV[1]), ARGV[2])
local subs = redis.call('SMEMBERS', KEYS[2])
for _, u in ipairs(subs) do
  keepIndexed(ARGV[5] .. u, ARGV[2], now, tonumber(ARGV[1]))
end
if ARGV[3] == '1' then
  return {redis.call('HGETALL', KEYS[1]), subs}
end
return {redis.call('HGET', KEYS[1], 'lvl'), 0}`)

// keepIndexed is the Lua prelude that defines keepIndexed(key, id, now,
// ttl): in the index key of a resource (a sorted set of the sessions
// subscribed to it, each scored by when it expires), id's entry expires
// at now + ttl, and the key itself no sooner. So an index outlives none of
// its sessions by more than their idle timeout, and it is dropped with
// the last of them even when no DELETE or notification comes.
const keepIndexed = `local function keepIndexed(key, id, now, ttl)
  redis.call('ZADD', key, now + ttl, id)
  local left = redis.call('PTTL', key)
  if left ~= -2 and left < ttl then redis.call('PEXPIRE', key, ttl) end
end
`

// updateScript: KEYS hash, subscriptions, the index of the resource
// (un)subscribed; ARGV level, subscribe, unsubscribe, standalone, id. 0
// when the session is gone. A subscription drops the index's entries of
// the sessions that expired (the index is bounded by the live ones).
var updateScript = goredis.NewScript(keepIndexed + `
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then return 0 end
if ARGV[1] ~= '' then redis.call('HSET', KEYS[1], 'lvl', ARGV[1]) end
if ARGV[4] ~= '' then redis.call('HSET', KEYS[1], 'sa', ARGV[4]) end
if ARGV[2] ~= '' then
  redis.call('SADD', KEYS[2], ARGV[2])
  redis.call('PEXPIRE', KEYS[2], ttl)
` + nowMs + `
  redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
  keepIndexed(KEYS[3], ARGV[5], now, ttl)
end
if ARGV[3] ~= '' then
  redis.call('SREM', KEYS[2], ARGV[3])
  redis.call('ZREM', KEYS[3], ARGV[5])
end
return 1`)

// deleteScript: KEYS hash, subscriptions, events, sessions zset; ARGV id,
// the prefix of the resource indexes. 1 when the session was live.
var deleteScript = goredis.NewScript(`
local live = redis.call('EXISTS', KEYS[1])
for _, u in ipairs(redis.call('SMEMBERS', KEYS[2])) do
  redis.call('ZREM', ARGV[2] .. u, ARGV[1])
end
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3])
redis.call('ZREM', KEYS[4], ARGV[1])
return live`)

// appendScript: KEYS events, hash; ARGV max events, stream, message, the
// session's wake channel, the append's token, retry. The new event's
// stream id; nil when the session is gone (nothing is stored for it). The
// token, unique to one Append, is kept in the entry (field t): an Append
// tried again (retry = 1) after a failed connection, which may have
// stored the event before it failed, returns that event's id if one of
// the latest entries carries its token, rather than storing it twice.
var appendScript = goredis.NewScript(`
local ttl = redis.call('PTTL', KEYS[2])
if ttl < 0 then return false end
if ARGV[6] == '1' then
  for _, e in ipairs(redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 512)) do
    if e[2][6] == ARGV[5] then return e[1] end
  end
end
local id = redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[1], '*', 's', ARGV[2], 'm', ARGV[3], 't', ARGV[5])
redis.call('PEXPIRE', KEYS[1], ttl)
redis.call('PUBLISH', ARGV[4], '')
return id`)

// replayScript: KEYS events, the session's hash; ARGV the stream id of
// the last event seen, its stream. Nil when the session is gone (a Redis
// that lost its data: a follower then ends its stream, and the client's
// resume gets 404) or that entry holds an event of another stream; else
// {found, oldest, id, message, id, message, ...}: found is 1 when the
// entry is there, 0 when it is not (trimmed, or lost in a failover or a
// crash); oldest is the id of the oldest entry kept ("" when none); then
// the ids and messages of the stream's later events (by entry id: a
// missing entry is a position all the same), without the empty ones.
var replayScript = goredis.NewScript(`
if redis.call('EXISTS', KEYS[2]) == 0 then return false end
local first = redis.call('XRANGE', KEYS[1], ARGV[1], ARGV[1])
local found = 1
if #first == 0 then
  found = 0
elseif first[1][2][2] ~= ARGV[2] then
  return false
end
local oldest = ''
local head = redis.call('XRANGE', KEYS[1], '-', '+', 'COUNT', 1)
if #head > 0 then oldest = head[1][1] end
local out = {found, oldest}
for _, e in ipairs(redis.call('XRANGE', KEYS[1], '(' .. ARGV[1], '+')) do
  local f = e[2]
  if f[2] == ARGV[2] and f[4] ~= '' then
    out[#out + 1] = e[1]
    out[#out + 1] = f[4]
  end
end
return out`)
