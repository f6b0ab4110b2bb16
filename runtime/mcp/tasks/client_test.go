package tasks_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
	"github.com/rpcgen/rpcgen/runtime/mcp/tasks"
)

// connect returns a 2026-07-28 client of f's server declaring the Tasks
// extension, which accepts every elicitation.
func (f *fixture) connect(declare bool) *mcpclient.Client {
	f.t.Helper()
	opts := mcpclient.Options{
		ProtocolVersion: mcp.Version20260728,
		OnElicit: func(context.Context, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept"}, nil
		},
	}
	if declare {
		opts.Extensions = []mcp.Extension{{ID: mcp.TasksExtensionID}}
	}
	c, err := mcpclient.ConnectTransport(f.t.Context(), f.srv.InProcess(), opts)
	if err != nil {
		f.t.Fatal(err)
	}
	f.t.Cleanup(func() { c.Close() })
	return c
}

func TestClientFollowsTasks(t *testing.T) {
	f := newFixture(t, &tasks.Options{PollInterval: time.Millisecond})
	c := f.connect(true)
	var s string
	if err := c.CallTool(t.Context(), "confirm", nil, &s); err != nil || s != "accept,accept" {
		t.Fatalf("CallTool of a task answering two questions: %q, %v", s, err)
	}
	err := c.CallTool(t.Context(), "toolerr", nil, nil)
	var te *mcp.ToolError
	if !errors.As(err, &te) {
		t.Errorf("a task ending with a tool error: %v", err)
	}
	err = c.CallTool(t.Context(), "broken", nil, nil)
	var re *runtime.Error
	if !errors.As(err, &re) || re.Code != -32050 {
		t.Errorf("a failed task: %v", err)
	}
	// A client without the extension gets the plain call, or -32021.
	plain := f.connect(false)
	close(f.release)
	if err := plain.CallTool(t.Context(), "wait", nil, &s); err != nil || s != "released" {
		t.Errorf("an optional task tool without the extension: %q, %v", s, err)
	}
	if err := plain.CallTool(t.Context(), "must", nil, nil); !errors.As(err, &re) || re.Code != mcp.CodeMissingClientCapability {
		t.Errorf("a required task tool without the extension: %v", err)
	}
}

func TestClientHandle(t *testing.T) {
	f := newFixture(t, &tasks.Options{PollInterval: time.Millisecond})
	c := f.connect(true)
	h, raw, err := c.StartTool(t.Context(), "wait", nil)
	if err != nil || h == nil || raw != nil {
		t.Fatalf("StartTool: %v, %v, %s", h, err, raw)
	}
	f.await(h.ID(), func(mcp.TaskStatus) bool { return f.get(h.ID()).StatusMessage == "halfway" })
	task, err := h.Refresh(t.Context())
	if err != nil || task.Status != mcp.TaskWorking || task.StatusMessage != "halfway" {
		t.Fatalf("Refresh: %+v, %v", task, err)
	}
	// Giving up on the result cancels the task, and the tool sees it.
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := h.Result(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Result with an ended context: %v", err)
	}
	<-f.stopped
	if _, err := h.Result(t.Context()); !errors.Is(err, mcpclient.ErrTaskCancelled) {
		t.Errorf("Result of a cancelled task: %v", err)
	}
	// Another handle to the same task, by ID.
	again, err := c.Task(t.Context(), "wait", h.ID())
	if err != nil || again.Task().Status != mcp.TaskCancelled {
		t.Errorf("Task by ID: %+v, %v", again, err)
	}
	if _, err := c.Task(t.Context(), "wait", "unknown"); err == nil {
		t.Error("Task of an unknown ID succeeded")
	}
}

// TestNoTaskRuntime: a tool that needs a task, on a server without the
// task runtime, fails with a clear error.
func TestNoTaskRuntime(t *testing.T) {
	srv := mcpserver.New(mcp.Implementation{Name: "t", Version: "1"}, nil)
	srv.AddTools(mcpserver.Tool{Name: "must", Task: mcpserver.TaskRequired,
		Handler: func(context.Context, json.RawMessage) (json.RawMessage, error) { return nil, nil }})
	c, err := mcpclient.ConnectTransport(t.Context(), srv.InProcess(), mcpclient.Options{ProtocolVersion: mcp.Version20260728})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var re *runtime.Error
	if err := c.CallTool(t.Context(), "must", nil, nil); !errors.As(err, &re) || re.Code != runtime.CodeInternalError {
		t.Errorf("a required task tool without a task runtime: %v", err)
	}
}

// TestToolTask: the typed handle a generated client's Start method returns
// (mcp.StartToolTask): on a task, and on a call answered at once.
func TestToolTask(t *testing.T) {
	f := newFixture(t, &tasks.Options{PollInterval: time.Millisecond})
	task, err := mcp.StartToolTask[string](t.Context(), f.connect(true), "confirm", nil)
	if err != nil || task.ID() == "" {
		t.Fatalf("StartToolTask: %+v, %v", task, err)
	}
	if s, err := task.Result(t.Context()); err != nil || s != "accept,accept" {
		t.Errorf("Result: %q, %v", s, err)
	}
	if err := task.Wait(t.Context()); err != nil {
		t.Errorf("Wait after the end: %v", err)
	}
	close(f.release)
	// Without the extension an optional task tool answers at once.
	now, err := mcp.StartToolTask[string](t.Context(), f.connect(false), "wait", nil)
	if err != nil || now.ID() != "" || now.Task().Status != mcp.TaskCompleted {
		t.Fatalf("StartToolTask answered at once: %+v, %v", now, err)
	}
	if s, err := now.Result(t.Context()); err != nil || s != "released" {
		t.Errorf("Result of a call answered at once: %q, %v", s, err)
	}
	if err := now.Cancel(t.Context()); err != nil {
		t.Errorf("Cancel of a call answered at once: %v", err)
	}
	// A tool's error is the *runtime.Error it was sent with, as the
	// blocking method returns it.
	bad, err := mcp.StartToolTask[struct{}](t.Context(), f.connect(true), "toolerr", nil)
	if err != nil {
		t.Fatal(err)
	}
	var re *runtime.Error
	if err := bad.Wait(t.Context()); !errors.As(err, &re) || re.Message != "no luck" {
		t.Errorf("Wait of a task ending with a tool error: %v", err)
	}
	// A caller that cannot start tasks.
	if _, err := mcp.StartToolTask[string](t.Context(), callerFunc(nil), "wait", nil); !errors.Is(err, mcp.ErrNoTasks) {
		t.Errorf("StartToolTask through a plain ToolCaller: %v", err)
	}
}

type callerFunc func(ctx context.Context, name string, args, result any) error

func (f callerFunc) CallTool(ctx context.Context, name string, args, result any) error {
	return f(ctx, name, args, result)
}
