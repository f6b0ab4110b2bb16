package redis_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/rpcgen/rpcgen/ext/redis/internal/redistest"
	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
	"github.com/rpcgen/rpcgen/runtime/mcp/tasks"
)

// taskClient connects a 2026-07-28 client declaring the Tasks extension
// through the proxy; every request goes to the next replica.
func taskClient(t *testing.T, u string) *mcpclient.Client {
	t.Helper()
	return connect(t, u, mcpclient.Options{ProtocolVersion: mcp.Version20260728,
		Extensions: []mcp.Extension{{ID: mcp.TasksExtensionID}}})
}

// tally counts tasks by how they ended, as their clients learned it.
type tally struct {
	created, completed, failed, cancelled, lost atomic.Int64
	firstLost                                   atomic.Value
}

func (n *tally) String() string {
	return fmt.Sprintf("%d created: %d completed, %d failed, %d cancelled, %d lost",
		n.created.Load(), n.completed.Load(), n.failed.Load(), n.cancelled.Load(), n.lost.Load())
}

// ended is how a task ended, as follow saw it.
type ended struct {
	status mcp.TaskStatus
	result json.RawMessage
	msg    string // the failed task's error message
}

// follow picks the task id up by its ID (Client.Task) and follows it
// until it ends; a request that fails on the way (a replica killed under
// it, Redis restarting) is tried again, on the next replica, at most 50
// times. A task the server no longer knows, or that does not end, is
// lost.
func follow(ctx context.Context, cl *mcpclient.Client, tool, id string, n *tally) ended {
	var last error
	for range 50 {
		h, err := cl.Task(ctx, tool, id)
		if err == nil {
			res, rerr := h.Result(ctx)
			task := h.Task()
			switch task.Status {
			case mcp.TaskCompleted:
				n.completed.Add(1)
				return ended{status: task.Status, result: res}
			case mcp.TaskFailed:
				n.failed.Add(1)
				var re *runtime.Error
				errors.As(rerr, &re)
				return ended{status: task.Status, msg: re.Error()}
			case mcp.TaskCancelled:
				n.cancelled.Add(1)
				return ended{status: task.Status}
			}
			err = rerr
		}
		var re *runtime.Error
		if errors.As(err, &re) && strings.Contains(re.Message, "not found") || ctx.Err() != nil {
			last = err
			break
		}
		last = err
		pause(ctx, 100*time.Millisecond) // a client's retry, not the test's synchronisation
	}
	n.lost.Add(1)
	n.firstLost.CompareAndSwap(nil, fmt.Sprintf("task %s: %v", id, last))
	return ended{}
}

func pause(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// start creates a task of tool through cl, trying again when the request
// fails on the way; "" when no attempt made one.
func start(ctx context.Context, cl *mcpclient.Client, tool string, args any, n *tally) string {
	for range 20 {
		h, _, err := cl.StartTool(ctx, tool, args)
		if err == nil && h != nil {
			n.created.Add(1)
			return h.ID()
		}
		if ctx.Err() != nil {
			return ""
		}
		pause(ctx, 100*time.Millisecond)
	}
	return ""
}

// runningOn waits until the task id reports the replica running it (its
// statusMessage), polling as often as the server asks, and returns that
// replica's name.
func runningOn(ctx context.Context, t *testing.T, cl *mcpclient.Client, tool, id string) string {
	t.Helper()
	h, err := cl.Task(ctx, tool, id)
	if err != nil {
		t.Fatal(err)
	}
	for {
		if name, ok := strings.CutPrefix(h.Task().StatusMessage, "running on replica "); ok {
			return name
		}
		if h.Task().Status.Terminal() {
			t.Fatalf("task %s ended %s before it was seen running", id, h.Task().Status)
		}
		pause(ctx, time.Duration(h.Task().PollIntervalMs)*time.Millisecond)
		if ctx.Err() != nil {
			t.Fatalf("task %s not seen running: %v", id, ctx.Err())
		}
		if _, err := h.Refresh(ctx); err != nil {
			t.Fatal(err)
		}
	}
}

// checkAllEnded reads every task the replicas stored on Redis: each must
// have ended (none left working by a dead worker). It returns how many
// there are, and how many were begun more than once.
func checkAllEnded(ctx context.Context, t *testing.T, rs *redistest.Server, prefix string) (stored, again int) {
	t.Helper()
	rdb := goredis.NewClient(&goredis.Options{Addr: rs.Addr()})
	defer rdb.Close()
	keys, err := rdb.Keys(ctx, prefix+"task:{*").Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		raw, err := rdb.HGet(ctx, k, "r").Result()
		if err != nil {
			t.Fatal(err)
		}
		var r tasks.Record
		if err := json.Unmarshal([]byte(raw), &r); err != nil {
			t.Fatal(err)
		}
		if !r.Status.Terminal() {
			t.Errorf("task %s is still %s after every client saw its tasks end", r.ID, r.Status)
		}
		if r.Runs > 1 {
			again++
		}
	}
	return len(keys), again
}

// TestTasksAcrossReplicaProcesses: three replica processes on a
// redis-server with its append-only file on (appendfsync always, as
// docs/tasks.md advises), behind the round-robin proxy. A client creates
// tasks on one replica and follows them through the others; one is
// cancelled; a replica is killed (SIGKILL) while it runs tasks, and the
// client disconnects and a new one picks every task up by its ID; Redis
// is shut down and started again while tasks run. Every task ends, and its
// client learns how: the idempotent ones the dead replica ran are run
// again elsewhere and complete, the others fail saying why; none is lost.
func TestTasksAcrossReplicaProcesses(t *testing.T) {
	rs := redistest.StartWith(t, redistest.Config{AppendOnly: true, Fsync: "always"})
	c := startProcs(t, rs)
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	var n tally
	cl := taskClient(t, c.URL)

	// Followed through the other replicas, and one cancelled.
	short := []string{}
	for i := range 6 {
		short = append(short, start(ctx, cl, "job", jobArgs(fmt.Sprint("s", i), 200), &n))
	}
	long := start(ctx, cl, "job", jobArgs("long", 60000), &n)
	h, err := cl.Task(ctx, "job", long)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Cancel(ctx); err != nil {
		t.Fatal(err)
	}
	for i, id := range short {
		if e := follow(ctx, cl, "job", id, &n); e.status != mcp.TaskCompleted || !strings.Contains(string(e.result), fmt.Sprintf(`"tag":"s%d"`, i)) {
			t.Errorf("short task %d ended %s: %s %s", i, e.status, e.result, e.msg)
		}
	}
	if e := follow(ctx, cl, "job", long, &n); e.status != mcp.TaskCancelled {
		t.Errorf("the cancelled task ended %s", e.status)
	}

	// A replica killed while it runs tasks (8 s each: seeing all of them
	// running must take less, so that none has ended before the kill);
	// the client reconnects.
	type running struct{ tool, id, on string }
	var runs []running
	for i := range 12 {
		tool := []string{"job", "job_idem"}[i%2]
		runs = append(runs, running{tool: tool, id: start(ctx, cl, tool, jobArgs(fmt.Sprint("k", i), 8000), &n)})
	}
	onVictim := map[string]int{}
	for i := range runs {
		runs[i].on = runningOn(ctx, t, cl, runs[i].tool, runs[i].id)
		onVictim[runs[i].on]++
	}
	victim := "0"
	for name, k := range onVictim {
		if k > onVictim[victim] {
			victim = name
		}
	}
	c.kill(t, map[string]int{"0": 0, "1": 1, "2": 2}[victim])
	cl.Close()
	cl = taskClient(t, c.URL)
	var failedHere, rerun int
	for _, r := range runs {
		e := follow(ctx, cl, r.tool, r.id, &n)
		switch {
		case r.on == victim && r.tool == "job":
			if e.status != mcp.TaskFailed || !strings.Contains(e.msg, "not idempotent") {
				t.Errorf("a non-idempotent task on the killed replica ended %s %q; want failed, saying why", e.status, e.msg)
			}
			failedHere++
		case r.on == victim:
			if e.status != mcp.TaskCompleted || strings.Contains(string(e.result), `"replica":"`+victim+`"`) {
				t.Errorf("an idempotent task on the killed replica ended %s %s; want completed by another", e.status, e.result)
			}
			rerun++
		default:
			if e.status != mcp.TaskCompleted {
				t.Errorf("a task on a live replica ended %s %q", e.status, e.msg)
			}
		}
	}
	t.Logf("replica %s killed running %d tasks: %d failed (not idempotent), %d run again elsewhere", victim, onVictim[victim], failedHere, rerun)
	if onVictim[victim] == 0 {
		t.Error("the killed replica ran no task")
	}

	// Redis shut down and started again (its append-only file kept) while
	// tasks run. They run 5 s, so that they end once Redis is back (a
	// task's end is stored when its tool returns), and the restart must
	// take less than the lease less its renewal period (2 s), so that no
	// replica takes a running task up.
	var during []running
	for i := range 6 {
		tool := []string{"job", "job_idem"}[i%2]
		during = append(during, running{tool: tool, id: start(ctx, cl, tool, jobArgs(fmt.Sprint("r", i), 5000), &n)})
	}
	for _, r := range during {
		runningOn(ctx, t, cl, r.tool, r.id)
	}
	rs.Shutdown()
	rs.Restart()
	for _, r := range during {
		if e := follow(ctx, cl, r.tool, r.id, &n); e.status != mcp.TaskCompleted {
			t.Errorf("a task running while Redis restarted ended %s %q", e.status, e.msg)
		}
	}
	stored, again := checkAllEnded(ctx, t, rs, c.Prefix)
	t.Logf("%v; %d tasks on Redis, all ended, %d begun again", &n, stored, again)
	if n.lost.Load() != 0 {
		t.Errorf("%d tasks lost (first: %v)", n.lost.Load(), n.firstLost.Load())
	}
	if want := int64(1 + len(short) + len(runs) + len(during)); n.created.Load() != want {
		t.Errorf("%d tasks created, want %d", n.created.Load(), want)
	}
}

func jobArgs(tag string, ms int) map[string]any { return map[string]any{"tag": tag, "ms": ms} }

// TestTasksLoadThroughProxy: 64 clients create tasks for 30 seconds (5
// with -short) through the proxy to three replica processes, and follow
// each to its end, half of them idempotent; one replica is killed
// (SIGKILL) a third of the way through, another two thirds. Every task a
// client created ends and its client learns how (0 lost), and none is
// left unended on Redis.
func TestTasksLoadThroughProxy(t *testing.T) {
	rs := redistest.StartWith(t, redistest.Config{AppendOnly: true})
	c := startProcs(t, rs)
	dur := 30 * time.Second
	if testing.Short() {
		dur = 5 * time.Second
	}
	ctx, cancel := context.WithTimeout(t.Context(), dur+3*time.Minute)
	defer cancel()
	const clients = 64
	var n tally
	var noTask atomic.Int64
	var by [3]atomic.Int64      // completed tasks by the replica that ran them
	var unexpected atomic.Int64 // failed, but not for a dead worker of a tool not idempotent
	var firstUnexpected atomic.Value
	cls := make([]*mcpclient.Client, clients)
	for i := range cls {
		cls[i] = taskClient(t, c.URL)
	}
	begin := time.Now()
	deadline := begin.Add(dur)
	var wg sync.WaitGroup
	for i, cl := range cls {
		wg.Go(func() {
			for k := 0; time.Now().Before(deadline); k++ {
				tool := []string{"job", "job_idem"}[k%2]
				id := start(ctx, cl, tool, jobArgs(fmt.Sprint(i, "-", k), 50+(i*k)%200), &n)
				if id == "" {
					noTask.Add(1)
					continue
				}
				e := follow(ctx, cl, tool, id, &n)
				if e.status == mcp.TaskFailed && (tool != "job" || !strings.Contains(e.msg, "not idempotent")) {
					unexpected.Add(1)
					firstUnexpected.CompareAndSwap(nil, tool+": "+e.msg)
				}
				for r := range by {
					if strings.Contains(string(e.result), fmt.Sprintf(`\"replica\":\"%d\"`, r)) {
						by[r].Add(1)
					}
				}
			}
		})
	}
	kills := make(chan struct{})
	go func() {
		defer close(kills)
		for _, victim := range []int{1, 2} {
			pause(ctx, dur/3)
			c.kill(t, victim)
		}
	}()
	wg.Wait()
	<-kills
	took := time.Since(begin)
	stored, again := checkAllEnded(ctx, t, rs, c.Prefix)
	t.Logf("%d clients for %v through the proxy, replicas 1 and 2 killed: %v (%.0f tasks/s), %d creations that made no task; %d tasks on Redis, all ended, %d begun again; completed by replica 0/1/2: %d/%d/%d",
		clients, took.Round(time.Millisecond), &n, float64(n.created.Load())/took.Seconds(), noTask.Load(), stored, again, by[0].Load(), by[1].Load(), by[2].Load())
	if n.lost.Load() != 0 {
		t.Errorf("%d tasks lost (first: %v)", n.lost.Load(), n.firstLost.Load())
	}
	if unexpected.Load() != 0 {
		t.Errorf("%d tasks failed otherwise than for a dead worker of a tool not idempotent (first: %v)", unexpected.Load(), firstUnexpected.Load())
	}
	if ended := n.completed.Load() + n.failed.Load() + n.cancelled.Load(); ended != n.created.Load() {
		t.Errorf("%d tasks created, %d ended", n.created.Load(), ended)
	}
	if n.created.Load() < clients {
		t.Errorf("only %d tasks created in %v", n.created.Load(), dur)
	}
}
