package tasks_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/ask"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
	"github.com/rpcgen/rpcgen/runtime/mcp/tasks"
)

// The _meta of a 2026-07-28 request from a client declaring the Tasks
// extension (and elicitation), and of one declaring nothing.
const (
	metaTasks = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{},"extensions":{"io.modelcontextprotocol/tasks":{}}}}`
	metaPlain = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
)

// fixture is a server with the Tasks extension and tools whose behaviour a
// test steers through channels.
type fixture struct {
	t       *testing.T
	srv     *mcpserver.Server
	m       *tasks.Manager
	ss      *mcpserver.Session
	release chan struct{} // lets "wait" return
	stopped chan error    // "wait" sends its context's cause when cancelled
	now     time.Time
	mu      sync.Mutex
}

func newFixture(t *testing.T, opts *tasks.Options) *fixture {
	t.Helper()
	f := &fixture{t: t, release: make(chan struct{}), stopped: make(chan error, 1), now: time.Now()}
	f.srv = mcpserver.New(mcp.Implementation{Name: "t", Version: "1"}, nil)
	if opts == nil {
		opts = &tasks.Options{}
	}
	opts.Now = f.clock
	f.m = tasks.Enable(f.srv, opts)
	t.Cleanup(f.m.Close)
	obj := json.RawMessage(`{"type":"object"}`)
	text := func(s string) json.RawMessage { b, _ := json.Marshal(s); return b }
	f.srv.AddTools(
		mcpserver.Tool{Name: "wait", InputSchema: obj, Task: mcpserver.TaskOptional,
			Handler: func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
				mcpserver.Progress(ctx, 1, 2, "halfway")
				select {
				case <-f.release:
					return text("released"), nil
				case <-ctx.Done():
					f.stopped <- context.Cause(ctx)
					return nil, ctx.Err()
				}
			}},
		mcpserver.Tool{Name: "must", InputSchema: obj, Task: mcpserver.TaskRequired,
			Handler: func(context.Context, json.RawMessage) (json.RawMessage, error) { return text("done"), nil }},
		mcpserver.Tool{Name: "toolerr", InputSchema: obj, Task: mcpserver.TaskRequired,
			Handler: func(context.Context, json.RawMessage) (json.RawMessage, error) { return nil, errors.New("no luck") }},
		mcpserver.Tool{Name: "broken", InputSchema: obj, Task: mcpserver.TaskRequired,
			Handler: func(context.Context, json.RawMessage) (json.RawMessage, error) {
				return nil, mcpserver.ProtocolError(&runtime.Error{Code: -32050, Message: "upstream gone"})
			}},
		mcpserver.Tool{Name: "panics", InputSchema: obj, Task: mcpserver.TaskRequired,
			Handler: func(context.Context, json.RawMessage) (json.RawMessage, error) { panic("boom") }},
		mcpserver.Tool{Name: "confirm", InputSchema: obj, Task: mcpserver.TaskRequired,
			Handler: func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
				a, err := ask.Elicit(ctx, &mcp.ElicitParams{Message: "Sure?"}, ask.Key("sure"))
				if err != nil {
					return nil, err
				}
				b, err := ask.Elicit(ctx, &mcp.ElicitParams{Message: "Really?"})
				if err != nil {
					return nil, err
				}
				return text(a.Action + "," + b.Action), nil
			}},
		mcpserver.Tool{Name: "prelude", InputSchema: obj, Task: mcpserver.TaskRequired, TaskBegins: true,
			Handler: func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
				a, err := ask.Elicit(ctx, &mcp.ElicitParams{Message: "Name?",
					RequestedSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}}}`)}, ask.Key("name"))
				if err != nil {
					return nil, err
				}
				if err := mcpserver.BeginTask(ctx); err != nil {
					return nil, err
				}
				if !mcpserver.InTask(ctx) {
					return nil, errors.New("not in a task after BeginTask")
				}
				return text("hello " + string(a.Content)), nil
			}},
	)
	f.ss = f.srv.NewSession()
	t.Cleanup(f.ss.Close)
	return f
}

func (f *fixture) clock() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

func (f *fixture) advance(d time.Duration) {
	f.mu.Lock()
	f.now = f.now.Add(d)
	f.mu.Unlock()
}

// reply is a response as a test reads it.
type reply struct {
	Result map[string]json.RawMessage
	Error  *runtime.Error
}

// req sends a 2026-07-28 request with params members (and meta) and
// returns its response.
func (f *fixture) req(method, members, meta string) reply {
	f.t.Helper()
	if members != "" {
		members += ","
	}
	msg := `{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":{` + members + meta + `}}`
	raw := f.ss.Handle(context.Background(), []byte(msg), nil)
	var r reply
	if err := json.Unmarshal(raw, &r); err != nil {
		f.t.Fatalf("%s: response %s: %v", method, raw, err)
	}
	return r
}

func str(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatalf("not a string: %s", raw)
	}
	return s
}

// create calls tool with the extension declared and returns the task's ID.
func (f *fixture) create(tool string) string {
	f.t.Helper()
	r := f.req(mcp.MethodToolsCall, `"name":"`+tool+`","arguments":{}`, metaTasks)
	if r.Error != nil {
		f.t.Fatalf("tools/call %s: %v", tool, r.Error)
	}
	if rt := str(f.t, r.Result["resultType"]); rt != "task" {
		f.t.Fatalf("tools/call %s: resultType %q, want task", tool, rt)
	}
	for _, k := range []string{"result", "error", "inputRequests", "requestState"} {
		if _, ok := r.Result[k]; ok {
			f.t.Errorf("CreateTaskResult has %q", k)
		}
	}
	return str(f.t, r.Result["taskId"])
}

// get returns tasks/get's answer for id.
func (f *fixture) get(id string) *mcp.Task {
	f.t.Helper()
	r := f.req(mcp.MethodTasksGet, `"taskId":"`+id+`"`, metaTasks)
	if r.Error != nil {
		f.t.Fatalf("tasks/get: %v", r.Error)
	}
	if rt := str(f.t, r.Result["resultType"]); rt != "complete" {
		f.t.Errorf("tasks/get: resultType %q, want complete", rt)
	}
	b, _ := json.Marshal(r.Result)
	task := new(mcp.Task)
	if err := json.Unmarshal(b, task); err != nil {
		f.t.Fatal(err)
	}
	return task
}

// await waits, on the store's change signals, until the task id is in a
// status ok accepts, and returns it as tasks/get does.
func (f *fixture) await(id string, ok func(mcp.TaskStatus) bool) *mcp.Task {
	f.t.Helper()
	changes, stop := f.m.Store().Subscribe(id)
	defer stop()
	for {
		if task := f.get(id); ok(task.Status) {
			return task
		}
		select {
		case <-changes:
		case <-f.t.Context().Done():
			f.t.Fatal("the test ended before the task changed")
		}
	}
}

func terminal(s mcp.TaskStatus) bool { return s.Terminal() }

func TestLifecycle(t *testing.T) {
	f := newFixture(t, nil)
	id := f.create("wait")
	task := f.get(id) // at once: the task is durable before the answer
	if task.Status != mcp.TaskWorking && task.Status != mcp.TaskInputRequired {
		t.Fatalf("status %q right after creation", task.Status)
	}
	if task.TTLMs == nil || *task.TTLMs != time.Hour.Milliseconds() || task.PollIntervalMs <= 0 {
		t.Errorf("ttlMs %v, pollIntervalMs %d", task.TTLMs, task.PollIntervalMs)
	}
	f.await(id, func(mcp.TaskStatus) bool { return f.get(id).StatusMessage == "halfway" })
	close(f.release)
	task = f.await(id, terminal)
	if task.Status != mcp.TaskCompleted || !strings.Contains(string(task.Result), `"structuredContent":"released"`) || task.Error != nil {
		t.Fatalf("ended %+v, result %s", task, task.Result)
	}
	if r := f.req(mcp.MethodTasksCancel, `"taskId":"`+id+`"`, metaTasks); r.Error != nil || len(r.Result) != 2 {
		t.Errorf("cancel of an ended task: %+v (want the empty ack)", r)
	}
	if f.get(id).Status != mcp.TaskCompleted {
		t.Error("a cancel after the end changed the status")
	}
}

func TestNegotiation(t *testing.T) {
	f := newFixture(t, nil)
	// Optional: a client without the extension gets the plain result.
	close(f.release)
	r := f.req(mcp.MethodToolsCall, `"name":"wait","arguments":{}`, metaPlain)
	if r.Error != nil || str(t, r.Result["resultType"]) != "complete" || r.Result["taskId"] != nil {
		t.Fatalf("optional tool without the extension: %+v", r)
	}
	// Required: refused with -32021 naming the extension.
	r = f.req(mcp.MethodToolsCall, `"name":"must","arguments":{}`, metaPlain)
	if r.Error == nil || r.Error.Code != mcp.CodeMissingClientCapability ||
		!strings.Contains(string(r.Error.Data), `"extensions":{"io.modelcontextprotocol/tasks":{}}`) {
		t.Fatalf("required tool without the extension: %+v", r.Error)
	}
	for _, m := range []string{mcp.MethodTasksGet, mcp.MethodTasksCancel} {
		if r := f.req(m, `"taskId":"x"`, metaPlain); r.Error == nil || r.Error.Code != mcp.CodeMissingClientCapability {
			t.Errorf("%s without the extension: %+v", m, r.Error)
		}
	}
	for _, m := range []string{mcp.MethodTasksGet, mcp.MethodTasksCancel} {
		if r := f.req(m, `"taskId":"nope"`, metaTasks); r.Error == nil || r.Error.Code != runtime.CodeInvalidParams {
			t.Errorf("%s of an unknown task: %+v", m, r.Error)
		}
	}
	if r := f.req(mcp.MethodTasksUpdate, `"taskId":"nope","inputResponses":{}`, metaTasks); r.Error == nil || r.Error.Code != runtime.CodeInvalidParams {
		t.Errorf("tasks/update of an unknown task: %+v", r.Error)
	}
	if r := f.req(mcp.MethodTasksGet, `"taskId":""`, metaTasks); r.Error == nil || r.Error.Code != runtime.CodeInvalidParams {
		t.Errorf("tasks/get without a taskId: %+v", r.Error)
	}
	if caps := f.srv.Extensions(); len(caps) != 1 || caps[0].ID != mcp.TasksExtensionID {
		t.Errorf("the server declares %+v", caps)
	}
}

func TestEndings(t *testing.T) {
	f := newFixture(t, nil)
	for _, c := range []struct {
		tool   string
		status mcp.TaskStatus
		want   string
	}{
		{"must", mcp.TaskCompleted, `"structuredContent":"done"`},
		{"toolerr", mcp.TaskCompleted, `"isError":true`},
		{"broken", mcp.TaskFailed, `{"code":-32050,"message":"upstream gone"}`},
		{"panics", mcp.TaskFailed, `"code":-32603`},
	} {
		task := f.await(f.create(c.tool), terminal)
		got := string(task.Result) + string(task.Error)
		if task.Status != c.status || !strings.Contains(got, c.want) {
			t.Errorf("%s: %s with %s, want %s with %s", c.tool, task.Status, got, c.status, c.want)
		}
		if task.Status == mcp.TaskFailed && task.Result != nil {
			t.Errorf("%s: a failed task has a result", c.tool)
		}
	}
}

func TestCancelReachesTheTool(t *testing.T) {
	f := newFixture(t, nil)
	id := f.create("wait")
	f.await(id, func(mcp.TaskStatus) bool { return f.get(id).StatusMessage == "halfway" }) // the tool runs
	if r := f.req(mcp.MethodTasksCancel, `"taskId":"`+id+`"`, metaTasks); r.Error != nil || str(t, r.Result["resultType"]) != "complete" || r.Result["status"] != nil {
		t.Fatalf("tasks/cancel: %+v", r)
	}
	cause := <-f.stopped
	if cause == nil || !strings.Contains(cause.Error(), "cancelled") {
		t.Errorf("the tool's context ended with %v", cause)
	}
	if task := f.get(id); task.Status != mcp.TaskCancelled || task.Result != nil {
		t.Errorf("after cancel: %+v", task)
	}
}

func TestInputInsideATask(t *testing.T) {
	f := newFixture(t, nil)
	id := f.create("confirm")
	task := f.await(id, func(s mcp.TaskStatus) bool { return s == mcp.TaskInputRequired })
	q, ok := task.InputRequests["sure"]
	if !ok || q.Method != mcp.MethodElicitationCreate || !strings.Contains(string(q.Params), "Sure?") {
		t.Fatalf("inputRequests %+v", task.InputRequests)
	}
	// An unknown key is ignored; a bad answer is refused.
	if r := f.req(mcp.MethodTasksUpdate, `"taskId":"`+id+`","inputResponses":{"other":{"action":"accept"}}`, metaTasks); r.Error != nil || str(t, r.Result["resultType"]) != "complete" {
		t.Fatalf("update with an unknown key: %+v", r)
	}
	if r := f.req(mcp.MethodTasksUpdate, `"taskId":"`+id+`","inputResponses":{"sure":7}`, metaTasks); r.Error == nil || r.Error.Code != runtime.CodeInvalidParams {
		t.Fatalf("update with a bad answer: %+v", r.Error)
	}
	if f.get(id).InputRequests["sure"].Method == "" {
		t.Fatal("the question went away without an answer")
	}
	if r := f.req(mcp.MethodTasksUpdate, `"taskId":"`+id+`","inputResponses":{"sure":{"action":"accept"}}`, metaTasks); r.Error != nil || len(r.Result) != 2 {
		t.Fatalf("update: %+v", r)
	}
	if _, still := f.get(id).InputRequests["sure"]; still {
		t.Error("an answered question is still outstanding")
	}
	// The second question has a positional key.
	task = f.await(id, func(s mcp.TaskStatus) bool { return s == mcp.TaskInputRequired || s.Terminal() })
	key := "elicitation/create#1"
	if _, ok := task.InputRequests[key]; !ok {
		t.Fatalf("second question: %+v", task.InputRequests)
	}
	f.req(mcp.MethodTasksUpdate, `"taskId":"`+id+`","inputResponses":{"`+key+`":{"action":"decline"}}`, metaTasks)
	task = f.await(id, terminal)
	if task.Status != mcp.TaskCompleted || !strings.Contains(string(task.Result), `accept,decline`) {
		t.Fatalf("ended %s with %s", task.Status, task.Result)
	}
}

func TestInputBeforeTheTask(t *testing.T) {
	f := newFixture(t, nil)
	r := f.req(mcp.MethodToolsCall, `"name":"prelude","arguments":{}`, metaTasks)
	if r.Error != nil || str(t, r.Result["resultType"]) != "input_required" || r.Result["taskId"] != nil {
		t.Fatalf("round 1: %+v", r)
	}
	state := string(r.Result["requestState"])
	r = f.req(mcp.MethodToolsCall, `"name":"prelude","arguments":{},"requestState":`+state+`,"inputResponses":{"name":{"action":"accept","content":{"name":"Ada"}}}`, metaTasks)
	if r.Error != nil || str(t, r.Result["resultType"]) != "task" || r.Result["requestState"] != nil {
		t.Fatalf("round 2: %+v", r)
	}
	task := f.await(str(t, r.Result["taskId"]), terminal)
	if task.Status != mcp.TaskCompleted || !strings.Contains(string(task.Result), `Ada`) {
		t.Fatalf("ended %s with %s", task.Status, task.Result)
	}
}

func TestPrincipalSeesOnlyItsTasks(t *testing.T) {
	f := newFixture(t, nil)
	handle := func(principal, msg string) reply {
		raw := f.ss.Handle(mcpserver.WithPrincipal(context.Background(), principal), []byte(msg), nil)
		var r reply
		if err := json.Unmarshal(raw, &r); err != nil {
			t.Fatal(err)
		}
		return r
	}
	r := handle("alice", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"must","arguments":{},`+metaTasks+`}}`)
	id := str(t, r.Result["taskId"])
	if r := handle("bob", `{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"taskId":"`+id+`",`+metaTasks+`}}`); r.Error == nil || r.Error.Code != runtime.CodeInvalidParams {
		t.Errorf("another principal's tasks/get: %+v", r)
	}
	if r := handle("alice", `{"jsonrpc":"2.0","id":3,"method":"tasks/get","params":{"taskId":"`+id+`",`+metaTasks+`}}`); r.Error != nil {
		t.Errorf("the creator's tasks/get: %v", r.Error)
	}
}

func TestExpiry(t *testing.T) {
	f := newFixture(t, &tasks.Options{TTL: time.Minute})
	id := f.create("must")
	f.await(id, terminal)
	f.advance(time.Minute - time.Millisecond)
	f.get(id) // still there within its TTL
	f.advance(2 * time.Millisecond)
	r := f.req(mcp.MethodTasksGet, `"taskId":"`+id+`"`, metaTasks)
	if r.Error == nil || r.Error.Code != runtime.CodeInvalidParams || !strings.Contains(r.Error.Message, "expired") {
		t.Fatalf("tasks/get after the TTL: %+v", r.Error)
	}
	if _, err := f.m.Store().Get(context.Background(), id); !errors.Is(err, tasks.ErrNotFound) {
		t.Errorf("the expired task is still stored: %v", err)
	}
}

func TestStoreBound(t *testing.T) {
	store := &tasks.MemoryStore{Max: 2}
	f := newFixture(t, &tasks.Options{Store: store})
	f.create("must")
	f.create("must")
	r := f.req(mcp.MethodToolsCall, `"name":"must","arguments":{}`, metaTasks)
	if r.Error == nil || !strings.Contains(r.Error.Message, "full") {
		t.Fatalf("a third task in a store of two: %+v", r)
	}
	if store.Len() != 2 {
		t.Errorf("the store holds %d tasks", store.Len())
	}
}

// TestLegacySession: a 2025-11-25 session whose client declared the
// extension in initialize gets tasks too.
func TestLegacySession(t *testing.T) {
	f := newFixture(t, nil)
	send := func(msg string) reply {
		t.Helper()
		raw := f.ss.Handle(context.Background(), []byte(msg), nil)
		var r reply
		if raw != nil {
			if err := json.Unmarshal(raw, &r); err != nil {
				t.Fatalf("response %s: %v", raw, err)
			}
		}
		return r
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}},"clientInfo":{"name":"c","version":"1"}}}`)
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	r := send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"must","arguments":{}}}`)
	if r.Error != nil || str(t, r.Result["resultType"]) != "task" {
		t.Fatalf("tools/call: %+v", r)
	}
	id := str(t, r.Result["taskId"])
	changes, stop := f.m.Store().Subscribe(id)
	defer stop()
	for {
		r = send(`{"jsonrpc":"2.0","id":3,"method":"tasks/get","params":{"taskId":"` + id + `"}}`)
		if r.Error != nil {
			t.Fatal(r.Error)
		}
		if st := mcp.TaskStatus(str(t, r.Result["status"])); st.Terminal() {
			if st != mcp.TaskCompleted || !strings.Contains(string(r.Result["result"]), "done") {
				t.Fatalf("ended %+v", r.Result)
			}
			return
		}
		<-changes
	}
}
