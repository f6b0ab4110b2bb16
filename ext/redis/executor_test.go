package redis_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/rpcgen/rpcgen/ext/redis"
	"github.com/rpcgen/rpcgen/ext/redis/internal/redistest"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
	"github.com/rpcgen/rpcgen/runtime/mcp/tasks"
)

const metaTasks = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}`

// taskReplica is one replica of a server whose tasks live on Redis, in
// the test process: its tools "wait" (until release, or its context ends)
// and "redo" (the same, declared idempotent).
type taskReplica struct {
	t       *testing.T
	c       *goredis.Client
	srv     *mcpserver.Server
	m       *tasks.Manager
	exec    *redis.TaskExecutor
	ss      *mcpserver.Session
	release chan struct{}
	started chan struct{} // a run of either tool began
}

func newTaskReplica(t *testing.T, rs *redistest.Server, prefix string, lease time.Duration) *taskReplica {
	t.Helper()
	sh, c := newShared(t, rs, redis.Options{Prefix: prefix})
	r := &taskReplica{t: t, c: c, release: make(chan struct{}), started: make(chan struct{}, 16)}
	r.srv = mcpserver.New(mcp.Implementation{Name: "t", Version: "1"}, nil)
	r.exec = sh.TaskExecutor(redis.ExecutorOptions{Workers: 2, Lease: lease})
	r.m = tasks.Enable(r.srv, &tasks.Options{Store: sh.Tasks(redis.TaskOptions{Executor: r.exec}), Executor: r.exec})
	t.Cleanup(r.exec.Close)
	wait := func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
		r.started <- struct{}{}
		select {
		case <-r.release:
			return json.RawMessage(`"released"`), nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	yes := true
	obj := json.RawMessage(`{"type":"object"}`)
	r.srv.AddTools(
		mcpserver.Tool{Name: "wait", InputSchema: obj, Task: mcpserver.TaskRequired, Handler: wait},
		mcpserver.Tool{Name: "redo", InputSchema: obj, Task: mcpserver.TaskRequired, Handler: wait,
			Annotations: &mcp.ToolAnnotations{IdempotentHint: &yes}},
	)
	r.ss = r.srv.NewSession()
	t.Cleanup(r.ss.Close)
	return r
}

func (r *taskReplica) req(method, members string) map[string]json.RawMessage {
	r.t.Helper()
	msg := `{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":{` + members + `,` + metaTasks + `}}`
	var resp struct {
		Result map[string]json.RawMessage
		Error  *json.RawMessage
	}
	raw := r.ss.Handle(context.Background(), []byte(msg), nil)
	if err := json.Unmarshal(raw, &resp); err != nil || resp.Error != nil {
		r.t.Fatalf("%s: %s", method, raw)
	}
	return resp.Result
}

func (r *taskReplica) create(tool string) string {
	r.t.Helper()
	var id string
	_ = json.Unmarshal(r.req(mcp.MethodToolsCall, `"name":"`+tool+`","arguments":{}`)["taskId"], &id)
	if id == "" {
		r.t.Fatalf("tools/call %s made no task", tool)
	}
	return id
}

func (r *taskReplica) get(id string) *mcp.Task {
	r.t.Helper()
	b, _ := json.Marshal(r.req(mcp.MethodTasksGet, `"taskId":"`+id+`"`))
	task := new(mcp.Task)
	if err := json.Unmarshal(b, task); err != nil {
		r.t.Fatal(err)
	}
	return task
}

// await waits, on the store's change signals, until the task has ended,
// and returns it as tasks/get does.
func (r *taskReplica) await(id string) *mcp.Task {
	r.t.Helper()
	changes, stop := r.m.Store().Subscribe(id)
	defer stop()
	for {
		if task := r.get(id); task.Status.Terminal() {
			return task
		}
		select {
		case <-changes:
		case <-r.t.Context().Done():
			r.t.Fatal("the test ended before the task did")
		}
	}
}

// TestTaskRoundTrips holds the Redis round trips of a task to their
// targets (at most 2 to create one, 1 per status read): 1 to create one
// (the record and its queue entry, in one script), 1 per status read.
// The scripts are loaded by a first task (EVALSHA's NOSCRIPT fallback
// costs one more, once per Redis).
func TestTaskRoundTrips(t *testing.T) {
	rs := redistest.Start(t)
	a := newTaskReplica(t, rs, "rt:", time.Minute) // no workers: the tasks only queue
	a.get(a.create("wait"))
	h := &roundTrips{}
	a.c.AddHook(h)
	id := a.create("wait")
	if n := h.n.Swap(0); n != 1 {
		t.Errorf("creating a task took %d round trips to Redis, want 1", n)
	}
	if task := a.get(id); task.Status != mcp.TaskWorking {
		t.Fatalf("status %s", task.Status)
	}
	if n := h.n.Swap(0); n != 1 {
		t.Errorf("reading a task's status took %d round trips to Redis, want 1", n)
	}
}

// TestTasksRunOnAnyReplica: a task created on a replica without workers
// runs on another's; its result and cancellation cross replicas.
func TestTasksRunOnAnyReplica(t *testing.T) {
	rs := redistest.Start(t)
	a := newTaskReplica(t, rs, "any:", time.Minute)
	b := newTaskReplica(t, rs, "any:", time.Minute)
	b.exec.Start(b.m, b.srv)
	done := a.create("wait")
	<-b.started
	close(b.release)
	if task := a.await(done); task.Status != mcp.TaskCompleted || !strings.Contains(string(task.Result), "released") {
		t.Fatalf("task ended %s: %s", task.Status, task.Result)
	}
	b.release = make(chan struct{}) // the next run waits
	cancelled := a.create("wait")
	<-b.started
	a.req(mcp.MethodTasksCancel, `"taskId":"`+cancelled+`"`)
	if task := a.await(cancelled); task.Status != mcp.TaskCancelled {
		t.Fatalf("cancelled task ended %s", task.Status)
	}
	b.exec.Close() // its workers acked what they ran before they return
	if n, err := b.exec.Pending(context.Background()); err != nil || n != 0 {
		t.Errorf("%d tasks left queued (%v), want 0", n, err)
	}
}

// TestTaskWorkerDied: a task taken by a worker that then died (it read
// the entry, began the task and never renewed its lease) is run again by
// another replica's worker when its tool is idempotent, and failed with a
// clear error when it is not.
func TestTaskWorkerDied(t *testing.T) {
	rs := redistest.Start(t)
	ctx := context.Background()
	a := newTaskReplica(t, rs, "died:", time.Minute)
	plain, idem := a.create("wait"), a.create("redo")
	// The dead worker: it takes both entries and begins both tasks.
	if err := a.c.XGroupCreateMkStream(ctx, "died:taskqueue", "workers", "0").Err(); err != nil {
		t.Fatal(err)
	}
	res, err := a.c.XReadGroup(ctx, &goredis.XReadGroupArgs{Group: "workers", Consumer: "dead",
		Streams: []string{"died:taskqueue", ">"}, Count: 2}).Result()
	if err != nil || len(res) != 1 || len(res[0].Messages) != 2 {
		t.Fatalf("the dead worker read %v, %v", res, err)
	}
	for _, id := range []string{plain, idem} {
		if _, err := a.m.Store().Update(ctx, id, func(r *tasks.Record) error { r.Runs++; return nil }); err != nil {
			t.Fatal(err)
		}
	}
	b := newTaskReplica(t, rs, "died:", 300*time.Millisecond)
	close(b.release)
	b.exec.Start(b.m, b.srv)
	task := a.await(plain)
	if task.Status != mcp.TaskFailed || !strings.Contains(task.StatusMessage, `tool "wait" is not idempotent`) {
		t.Errorf("the non-idempotent task ended %s: %q", task.Status, task.StatusMessage)
	}
	task = a.await(idem)
	if task.Status != mcp.TaskCompleted || !strings.Contains(string(task.Result), "released") {
		t.Errorf("the idempotent task ended %s: %q %s", task.Status, task.StatusMessage, task.Result)
	}
	if r, _ := a.m.Store().Get(ctx, idem); r == nil || r.Runs != 2 {
		t.Errorf("the idempotent task was begun %v times, want 2", r)
	}
	b.exec.Close() // its workers acked what they ran before they return
	if n, err := b.exec.Pending(ctx); err != nil || n != 0 {
		t.Errorf("%d tasks left queued (%v), want 0", n, err)
	}
}

// TestTaskExecutorShutdown: Shutdown lets the tasks running end (and
// returns once they have), and, when its context ends first, returns its
// error and leaves them running, not failed, for other replicas to take
// up once the process is gone.
func TestTaskExecutorShutdown(t *testing.T) {
	rs := redistest.Start(t)
	ctx := context.Background()
	b := newTaskReplica(t, rs, "shut:", time.Minute)
	b.exec.Start(b.m, b.srv)
	id := b.create("wait")
	<-b.started
	gone, cancel := context.WithCancel(ctx)
	cancel()
	if err := b.exec.Shutdown(gone); err != context.Canceled {
		t.Fatalf("Shutdown with its context over while a task runs: %v, want context.Canceled", err)
	}
	if r, err := b.m.Store().Get(ctx, id); err != nil || r.Status != mcp.TaskWorking {
		t.Fatalf("the task left running is %v (%v), want working", r, err)
	}
	done := make(chan error, 1)
	go func() { done <- b.exec.Shutdown(ctx) }()
	close(b.release)
	if err := <-done; err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	if task := b.await(id); task.Status != mcp.TaskCompleted {
		t.Fatalf("the task ended %s after Shutdown, want completed", task.Status)
	}
	if n, err := b.exec.Pending(ctx); err != nil || n != 0 {
		t.Errorf("%d tasks left queued (%v), want 0", n, err)
	}
}
