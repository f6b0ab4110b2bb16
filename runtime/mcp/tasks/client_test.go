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
