package redis

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/rpcgen/rpcgen/runtime/mcp/tasks"
)

// TaskOptions configures the TaskStore.
type TaskOptions struct {
	// MaxTasks is the most tasks the store holds at once (those whose
	// time to live is not over); Create fails with tasks.ErrFull beyond.
	// Default 10000.
	MaxTasks int
	// Executor, when set, is the executor the tasks run on: Create then
	// queues each task in the same script that stores it (and the
	// executor's Submit does nothing), so that no task is ever stored
	// without being queued: a replica that died between the two would
	// leave one working, with no worker, until its time to live is over.
	// Creating a task is then one round trip.
	Executor *TaskExecutor
	// MaxUpdateRetries bounds the times Update reads a task again after
	// another replica changed it between its read and its write. Default
	// 100.
	MaxUpdateRetries int
}

// Tasks returns the replica's tasks.Store on Redis (Options.Store of
// tasks.Enable): every replica sharing the Redis database and prefix sees
// the same tasks.
//
// A task is one hash, Prefix+"task:{ID}", of its record (JSON) and a
// version; a sorted set, Prefix+"tasks", indexes the live tasks by when
// they expire, and bounds their number. The hash expires with the task's
// time to live (a Redis key TTL): Redis deletes it on its own, so nothing
// outlives its TTL even when no replica is left to sweep. Create is one
// script (1 round trip; with TaskOptions.Executor it queues the task too), Get one HMGET (1 round trip), and Update a read
// and a compare-and-set script on the version (2 round trips; more only
// when another replica changed the task in between: it reads again). The
// compare-and-set is a Lua script rather than WATCH/MULTI/EXEC: WATCH
// needs a connection of its own held for the whole read-modify-write
// (while fn runs, in Go) and one more round trip, and the script also
// publishes the change in the same atomic step. Subscribe listens to the
// task's pub/sub channel, which every change publishes on.
func (s *Shared) Tasks(opts TaskOptions) *TaskStore {
	if opts.MaxTasks <= 0 {
		opts.MaxTasks = 10000
	}
	if opts.MaxUpdateRetries <= 0 {
		opts.MaxUpdateRetries = 100
	}
	if opts.Executor != nil {
		opts.Executor.queuedByStore.Store(true)
	}
	return &TaskStore{s: s, opts: opts}
}

// TaskStore is a tasks.Store on Redis; Shared.Tasks makes one.
type TaskStore struct {
	s    *Shared
	opts TaskOptions
}

var _ tasks.Store = (*TaskStore)(nil)

func (t *TaskStore) key(id string) string     { return t.s.opts.Prefix + "task:{" + id + "}" }
func (t *TaskStore) index() string            { return t.s.opts.Prefix + "tasks" }
func (t *TaskStore) channel(id string) string { return t.s.opts.Prefix + "taskwake:" + id }

// createTaskScript: KEYS task hash, index, queue stream; ARGV max, ttl ms
// (0: none), id, record, queue ("1": add the id to the queue stream). 1
// when stored, 0 when the store is full, -1 when the id exists.
var createTaskScript = goredis.NewScript(nowMs + `
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
if redis.call('EXISTS', KEYS[1]) == 1 then return -1 end
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[1]) then return 0 end
local ttl = tonumber(ARGV[2])
if ttl > 0 then
  redis.call('ZADD', KEYS[2], now + ttl, ARGV[3])
else
  redis.call('ZADD', KEYS[2], '+inf', ARGV[3])
end
redis.call('HSET', KEYS[1], 'v', 1, 'r', ARGV[4])
if ttl > 0 then redis.call('PEXPIRE', KEYS[1], ttl) end
if ARGV[5] == '1' then redis.call('XADD', KEYS[3], '*', 't', ARGV[3]) end
return 1`)

// casTaskScript: KEYS task hash; ARGV version read, record, wake channel.
// 1 when stored, 0 when the version changed meanwhile, -1 when the task
// is gone. The hash keeps its TTL.
var casTaskScript = goredis.NewScript(`
local v = redis.call('HGET', KEYS[1], 'v')
if not v then return -1 end
if v ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'v', tonumber(v) + 1, 'r', ARGV[2])
redis.call('PUBLISH', ARGV[3], '')
return 1`)

// deleteTaskScript: KEYS task hash, index; ARGV id, wake channel.
var deleteTaskScript = goredis.NewScript(`
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('PUBLISH', ARGV[2], '')
return 1`)

// ttlMs is how long r has left to live, in milliseconds: 0 for no limit,
// at least 1 for one that is over (Redis then drops it at once).
func ttlMs(r *tasks.Record) int64 {
	if r.TTL <= 0 {
		return 0
	}
	return max(time.Until(r.CreatedAt.Add(r.TTL)).Milliseconds(), 1)
}

// Create implements tasks.Store: one script, one round trip (which also
// queues the task with TaskOptions.Executor).
func (t *TaskStore) Create(ctx context.Context, r *tasks.Record) error {
	b, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("redis: encode task: %w", err)
	}
	queue, stream := "0", t.s.opts.Prefix+"taskqueue"
	if t.opts.Executor != nil {
		queue, stream = "1", t.opts.Executor.stream()
	}
	n, err := createTaskScript.Run(ctx, t.s.c, []string{t.key(r.ID), t.index(), stream},
		t.opts.MaxTasks, ttlMs(r), r.ID, b, queue).Int()
	switch {
	case err != nil:
		return fmt.Errorf("redis: create task: %w", err)
	case n == 0:
		return tasks.ErrFull
	case n < 0:
		return errors.New("redis: a task with this ID exists")
	}
	return nil
}

// get reads the task id and its version: one HMGET.
func (t *TaskStore) get(ctx context.Context, id string) (*tasks.Record, string, error) {
	vals, err := t.s.c.HMGet(ctx, t.key(id), "v", "r").Result()
	if err != nil {
		return nil, "", fmt.Errorf("redis: read task: %w", err)
	}
	v, _ := vals[0].(string)
	raw, _ := vals[1].(string)
	if v == "" || raw == "" {
		return nil, "", tasks.ErrNotFound
	}
	r := new(tasks.Record)
	if err := json.Unmarshal([]byte(raw), r); err != nil {
		return nil, "", fmt.Errorf("redis: decode task %s: %w", id, err)
	}
	return r, v, nil
}

// Get implements tasks.Store: one round trip.
func (t *TaskStore) Get(ctx context.Context, id string) (*tasks.Record, error) {
	r, _, err := t.get(ctx, id)
	return r, err
}

// Update implements tasks.Store: a read and a compare-and-set of the
// version, read again while another replica wins the race.
func (t *TaskStore) Update(ctx context.Context, id string, fn func(*tasks.Record) error) (*tasks.Record, error) {
	for range t.opts.MaxUpdateRetries {
		r, v, err := t.get(ctx, id)
		if err != nil {
			return nil, err
		}
		if err := fn(r); err != nil {
			return nil, err
		}
		b, err := json.Marshal(r)
		if err != nil {
			return nil, fmt.Errorf("redis: encode task: %w", err)
		}
		n, err := casTaskScript.Run(ctx, t.s.c, []string{t.key(id)}, v, b, t.channel(id)).Int()
		switch {
		case err != nil:
			return nil, fmt.Errorf("redis: update task: %w", err)
		case n < 0:
			return nil, tasks.ErrNotFound
		case n > 0:
			return r, nil
		}
	}
	return nil, fmt.Errorf("redis: update task %s: changed by others %d times in a row", id, t.opts.MaxUpdateRetries)
}

// Delete implements tasks.Store.
func (t *TaskStore) Delete(ctx context.Context, id string) error {
	if err := deleteTaskScript.Run(ctx, t.s.c, []string{t.key(id), t.index()}, id, t.channel(id)).Err(); err != nil {
		return fmt.Errorf("redis: delete task: %w", err)
	}
	return nil
}

// Len returns the number of live tasks the store holds (those whose time
// to live is not over).
func (t *TaskStore) Len(ctx context.Context) (int64, error) {
	now, err := t.s.c.Time(ctx).Result()
	if err != nil {
		return 0, err
	}
	return t.s.c.ZCount(ctx, t.index(), "("+strconv.FormatInt(now.UnixMilli(), 10), "+inf").Result()
}

// Subscribe implements tasks.Store: the channel gets a value after each
// change any replica makes, and after the pub/sub connection comes back
// from a failure (changes may have been missed meanwhile). It returns
// once Redis confirmed the subscription, or after a couple of seconds
// when Redis does not answer (the subscription is then made when it is
// back).
func (t *TaskStore) Subscribe(id string) (<-chan struct{}, func()) {
	ch := make(chan struct{}, 1)
	signal := func() {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), goredisTimeout)
	defer cancel()
	stop, err := t.s.ps.subscribe(ctx, t.channel(id), func(string) { signal() }, signal, true)
	if err != nil { // the Shared is closed: no more changes reach here
		return ch, func() {}
	}
	return ch, stop
}
