package redis

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
	"github.com/rpcgen/rpcgen/runtime/mcp/tasks"
)

// ExecutorOptions configures the TaskExecutor.
type ExecutorOptions struct {
	// Workers is how many tasks this replica runs at once. Default 16. The
	// workers share one reader, which holds one connection of the client's
	// pool while it waits for tasks.
	Workers int
	// Lease is how long a task stays with a worker that stopped renewing
	// it (a worker renews its tasks every Lease/3): once it is over, any
	// replica's worker takes the task up. Default 30 s.
	Lease time.Duration
	// MaxRuns bounds the times a task is begun: a task whose workers died
	// MaxRuns times fails rather than kill one more. Default 3.
	MaxRuns int
	// Consumer names this replica's workers in the consumer group; default
	// random. Two live replicas must not share one.
	Consumer string
}

// TaskExecutor is a tasks.Executor on a Redis stream that every replica's
// workers read as one consumer group, so that any replica runs the tasks
// any replica created. Shared.TaskExecutor makes one; Start starts its
// workers.
//
// Submit adds the task's ID to the stream (XADD, one round trip). A worker
// reads it (XREADGROUP), which leaves it pending on that worker; while the
// task runs the worker renews its claim; when the task has ended it acks
// and deletes the entry. An entry whose worker stopped renewing for
// Lease (its process died, or lost Redis for that long) is claimed by
// another worker (XAUTOCLAIM), which looks at the task: ended, it only
// acks; never begun, it runs it; begun, it runs it again when its tool is
// idempotent (its idempotentHint), and fails it otherwise (Manager.Fail,
// with an error saying so), since running it twice could do twice what
// the tool does. So a task ends completed, failed or cancelled, never
// silently dropped, as long as Redis keeps its data (see docs/tasks.md on
// persistence).
type TaskExecutor struct {
	s    *Shared
	opts ExecutorOptions

	mu       sync.Mutex
	m        *tasks.Manager
	srv      *mcpserver.Server
	cancel   context.CancelFunc // ends the runs and the reader
	stopRead context.CancelFunc // ends the reader
	reader   sync.WaitGroup
	handlers sync.WaitGroup

	queuedByStore atomic.Bool // the TaskStore's Create queues the tasks
}

var _ tasks.Executor = (*TaskExecutor)(nil)

// TaskExecutor returns the replica's task executor on Redis (Options.Executor
// of tasks.Enable); call Start once tasks.Enable returned its Manager.
func (s *Shared) TaskExecutor(opts ExecutorOptions) *TaskExecutor {
	if opts.Workers <= 0 {
		opts.Workers = 16
	}
	if opts.Lease <= 0 {
		opts.Lease = 30 * time.Second
	}
	if opts.MaxRuns <= 0 {
		opts.MaxRuns = 3
	}
	if opts.Consumer == "" {
		opts.Consumer = rand.Text()
	}
	return &TaskExecutor{s: s, opts: opts}
}

const taskGroup = "workers"

func (e *TaskExecutor) stream() string { return e.s.opts.Prefix + "taskqueue" }

// Submit implements tasks.Executor: it queues the task, one round trip;
// nothing when the TaskStore's Create queued it already
// (TaskOptions.Executor), which is how a task is never stored unqueued.
func (e *TaskExecutor) Submit(ctx context.Context, taskID string) error {
	if e.queuedByStore.Load() {
		return nil
	}
	if err := e.s.c.XAdd(ctx, &goredis.XAddArgs{Stream: e.stream(), Values: []string{"t", taskID}}).Err(); err != nil {
		return fmt.Errorf("redis: queue task: %w", err)
	}
	return nil
}

// Start starts the replica's workers, which run tasks through m on srv
// (the server m was enabled on), until Shutdown or Close.
func (e *TaskExecutor) Start(m *tasks.Manager, srv *mcpserver.Server) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.cancel != nil {
		panic("redis: TaskExecutor started twice")
	}
	e.m, e.srv = m, srv
	runCtx, cancel := context.WithCancel(context.Background())
	readCtx, stopRead := context.WithCancel(runCtx)
	e.cancel, e.stopRead = cancel, stopRead
	e.reader.Go(func() { e.read(readCtx, runCtx) })
}

// Shutdown stops taking tasks and waits until the tasks this replica runs
// have ended, or ctx ends: then it returns ctx's error, and leaves the
// tasks still running as they are, so that once this process has exited
// and their lease is over, other replicas take them up (an idempotent
// tool's task runs again, another fails saying why) rather than fail
// them all at once as Close does. A replica shutting down for a rolling
// deployment calls Shutdown, then exits.
func (e *TaskExecutor) Shutdown(ctx context.Context) error {
	e.mu.Lock()
	stopRead := e.stopRead
	e.mu.Unlock()
	if stopRead == nil {
		return nil
	}
	stopRead()
	e.reader.Wait()
	done := make(chan struct{})
	go func() { e.handlers.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close stops the workers and waits for them. Tasks they were running end
// failed ("the server is shutting down"); those queued stay queued for
// the other replicas.
func (e *TaskExecutor) Close() {
	e.mu.Lock()
	cancel := e.cancel
	e.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	e.reader.Wait()
	e.handlers.Wait()
}

func (e *TaskExecutor) ensureGroup(ctx context.Context) error {
	err := e.s.c.XGroupCreateMkStream(ctx, e.stream(), taskGroup, "0").Err()
	if err != nil && !strings.HasPrefix(err.Error(), "BUSYGROUP") {
		return err
	}
	return nil
}

// pause waits d or until ctx ends.
func pause(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// read is the executor's one reader: while a worker is free, it takes
// up tasks whose lease is over (when it has not looked for some for
// Lease/4), and otherwise waits for new ones (one blocking XREADGROUP, so
// that the workers waiting hold no connection of the client's pool), and
// hands each to a worker of its own, which runs it with runCtx.
func (e *TaskExecutor) read(ctx, runCtx context.Context) {
	block := min(e.opts.Lease/4, 2*time.Second)
	free := make(chan struct{}, e.opts.Workers)
	for range e.opts.Workers {
		free <- struct{}{}
	}
	var lastReclaim time.Time
	for {
		select { // a worker free
		case <-ctx.Done():
			return
		case <-free:
		}
		n := int64(1)
		for more := true; more && n < 32; {
			select {
			case <-free:
				n++
			default:
				more = false
			}
		}
		var msgs []goredis.XMessage
		var err error
		if time.Since(lastReclaim) > e.opts.Lease/4 {
			msgs, _, err = e.s.c.XAutoClaim(ctx, &goredis.XAutoClaimArgs{Stream: e.stream(), Group: taskGroup,
				Consumer: e.opts.Consumer, MinIdle: e.opts.Lease, Start: "0-0", Count: n}).Result()
			if err == nil && int64(len(msgs)) < n {
				lastReclaim = time.Now() // none left: look again in Lease/4
			}
		}
		if err == nil && len(msgs) == 0 {
			var res []goredis.XStream
			res, err = e.s.c.XReadGroup(ctx, &goredis.XReadGroupArgs{Group: taskGroup, Consumer: e.opts.Consumer,
				Streams: []string{e.stream(), ">"}, Count: n, Block: block}).Result()
			for _, st := range res {
				msgs = append(msgs, st.Messages...)
			}
		}
		if err != nil && !errors.Is(err, goredis.Nil) {
			e.failed(ctx, err)
		}
		for _, msg := range msgs {
			n--
			e.handlers.Go(func() {
				defer func() { free <- struct{}{} }()
				e.handle(runCtx, msg)
			})
		}
		for range n {
			free <- struct{}{}
		}
	}
}

// failed handles a failed read or claim: the group is made again when
// Redis lost it (a restart without persistence), else the reader pauses.
func (e *TaskExecutor) failed(ctx context.Context, err error) {
	if ctx.Err() != nil {
		return
	}
	if strings.HasPrefix(err.Error(), "NOGROUP") {
		if gerr := e.ensureGroup(ctx); gerr == nil {
			return
		}
	}
	e.s.logger.Warn("redis: task queue read", "err", err)
	pause(ctx, time.Second)
}

// renewScript: KEYS stream; ARGV group, consumer, entry id. 1 when the
// entry is still this consumer's (its idle time is reset: the lease is
// renewed), 0 when another worker claimed it.
var renewScript = goredis.NewScript(`
local p = redis.call('XPENDING', KEYS[1], ARGV[1], ARGV[3], ARGV[3], 1)
if #p == 0 or p[1][2] ~= ARGV[2] then return 0 end
redis.call('XCLAIM', KEYS[1], ARGV[1], ARGV[2], 0, ARGV[3], 'JUSTID')
return 1`)

// handle runs the task of the entry msg (new, or taken up from a worker
// whose lease is over) and acks the entry once the task has ended.
func (e *TaskExecutor) handle(ctx context.Context, msg goredis.XMessage) {
	id, _ := msg.Values["t"].(string)
	if id == "" {
		e.ack(msg.ID)
		return
	}
	r, err := e.m.Store().Get(ctx, id)
	switch {
	case errors.Is(err, tasks.ErrNotFound):
		e.ack(msg.ID) // deleted, or its time to live is over
		return
	case err != nil:
		e.s.logger.Warn("redis: read a queued task", "task", id, "err", err)
		return // still pending: taken up again once its lease is over
	case r.Status.Terminal():
		e.ack(msg.ID)
		return
	}
	if r.Runs > 0 {
		if why := e.refuseRerun(r); why != "" {
			e.m.Fail(ctx, id, why)
			e.ack(msg.ID)
			return
		}
	}
	hbCtx, stop := context.WithCancel(ctx)
	renewed := make(chan struct{})
	go func() {
		defer close(renewed)
		e.renew(hbCtx, id, msg.ID)
	}()
	err = e.m.Run(ctx, id)
	stop()
	<-renewed
	if err != nil {
		e.s.logger.Warn("redis: run a task", "task", id, "err", err)
		return // the store failed: the entry stays pending, for another try
	}
	e.ack(msg.ID)
}

// refuseRerun says why the task r, begun by a worker that died, may not
// run again; "" when it may.
func (e *TaskExecutor) refuseRerun(r *tasks.Record) string {
	if r.Runs >= e.opts.MaxRuns {
		return fmt.Sprintf("the task was begun %d times and its worker stopped each time before it ended; it is not run again", r.Runs)
	}
	a, _ := e.srv.ToolAnnotations(r.Job.Tool)
	if a == nil || a.IdempotentHint == nil || !*a.IdempotentHint {
		return fmt.Sprintf("the worker running the task stopped before it ended (its lease expired), and tool %q is not idempotent, so it was not run again", r.Job.Tool)
	}
	return ""
}

// renew renews the lease of the entry entryID every Lease/3 until ctx
// ends, or another worker claimed it.
func (e *TaskExecutor) renew(ctx context.Context, taskID, entryID string) {
	t := time.NewTicker(e.opts.Lease / 3)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		n, err := renewScript.Run(ctx, e.s.c, []string{e.stream()}, taskGroup, e.opts.Consumer, entryID).Int()
		if err != nil {
			if ctx.Err() == nil {
				e.s.logger.Warn("redis: renew a task's lease", "task", taskID, "err", err)
			}
			continue
		}
		if n == 0 {
			// Another worker took it up (this one missed its renewals for a
			// whole lease): it runs it again or fails it; this run's
			// result is kept only if it ends first.
			e.s.logger.Warn("redis: a task's lease was taken over", "task", taskID)
			return
		}
	}
}

// ack acks and deletes the entry id, one round trip, so that the stream
// holds only the tasks not ended yet.
func (e *TaskExecutor) ack(id string) {
	ctx, cancel := context.WithTimeout(context.Background(), goredisTimeout)
	defer cancel()
	_, err := e.s.c.TxPipelined(ctx, func(p goredis.Pipeliner) error {
		p.XAck(ctx, e.stream(), taskGroup, id)
		p.XDel(ctx, e.stream(), id)
		return nil
	})
	if err != nil {
		e.s.logger.Warn("redis: ack a task", "entry", id, "err", err)
	}
}

// Pending returns the number of tasks queued and not ended (the length
// of the queue's stream).
func (e *TaskExecutor) Pending(ctx context.Context) (int64, error) {
	return e.s.c.XLen(ctx, e.stream()).Result()
}
