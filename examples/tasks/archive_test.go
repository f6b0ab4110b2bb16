package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"testing"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
	"github.com/rpcgen/rpcgen/runtime/mcp/tasks"
)

// connect serves Archive in process (batches take no time) and returns a
// client declaring the Tasks extension that answers the confirmation with
// answer, and the server's task manager.
func connect(t *testing.T, answer *mcp.ElicitResult) (*mcpclient.Client, *tasks.Manager) {
	t.Helper()
	srv, m := newServer(0, slog.New(slog.NewTextHandler(io.Discard, nil)))
	t.Cleanup(m.Close)
	c, err := mcpclient.ConnectTransport(t.Context(), srv.InProcess(), mcpclient.Options{
		ProtocolVersion: mcp.Version20260728,
		Extensions:      []mcp.Extension{{ID: mcp.TasksExtensionID}},
		OnElicit: func(_ context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			if p.Message != "Compacted 2 of 4 batches. Go on, and delete the originals?" {
				t.Errorf("asked %q", p.Message)
			}
			return answer, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, m
}

// TestCompactConfirmed: the typed client's call blocks while the task runs,
// answers its question midway and returns its result.
func TestCompactConfirmed(t *testing.T) {
	c, _ := connect(t, &mcp.ElicitResult{Action: "accept", Content: json.RawMessage(`{"delete":true}`)})
	r, err := NewArchiveMCPClient(c).Compact(t.Context(), 4)
	if err != nil || r != (Report{Compacted: 4, Deleted: true}) {
		t.Fatalf("Compact: %+v, %v", r, err)
	}
}

func TestCompactDeclined(t *testing.T) {
	c, _ := connect(t, &mcp.ElicitResult{Action: "decline"})
	r, err := NewArchiveMCPClient(c).Compact(t.Context(), 4)
	if err != nil || r != (Report{Compacted: 2}) {
		t.Fatalf("Compact: %+v, %v", r, err)
	}
}

// TestCompactCancelled: a task waiting for its confirmation is cancelled,
// and its tool stops.
func TestCompactCancelled(t *testing.T) {
	c, m := connect(t, nil)
	h, _, err := c.StartTool(t.Context(), ArchiveCompactTool, map[string]int{"batches": 4})
	if err != nil || h == nil {
		t.Fatalf("StartTool: %v, %v", h, err)
	}
	changes, stop := m.Store().Subscribe(h.ID())
	defer stop()
	for {
		task, err := h.Refresh(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if task.Status == mcp.TaskInputRequired {
			if _, ok := task.InputRequests["confirm"]; !ok || task.StatusMessage != "compacting batch 2 of 4" {
				t.Fatalf("midway: %+v", task)
			}
			break
		}
		<-changes
	}
	if err := h.Cancel(t.Context()); err != nil {
		t.Fatal(err)
	}
	if task := h.Task(); task.Status != mcp.TaskCancelled {
		t.Fatalf("after the cancel: %+v", task)
	}
	if err := h.Decode(t.Context(), new(Report)); !errors.Is(err, mcpclient.ErrTaskCancelled) {
		t.Fatalf("the result of a cancelled task: %v", err)
	}
	m.Close() // waits for the tool to return: it saw the cancellation
	if r, _ := m.Store().Get(t.Context(), h.ID()); r == nil || r.Status != mcp.TaskCancelled {
		t.Errorf("stored: %+v", r)
	}
}

// TestStartCompact: the typed client's StartCompact gives the task's typed
// handle: its status while it waits for the confirmation, the answer
// given through it, and its Result, a Report.
func TestStartCompact(t *testing.T) {
	c, m := connect(t, nil) // the handle answers, not the client's handler
	task, err := NewArchiveMCPClient(c).StartCompact(t.Context(), 4)
	if err != nil || task.ID() == "" {
		t.Fatalf("StartCompact: %v, %v", task, err)
	}
	changes, stop := m.Store().Subscribe(task.ID())
	defer stop()
	for {
		st, err := task.Refresh(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if st.Status == mcp.TaskInputRequired {
			break
		}
		<-changes
	}
	if q, ok := task.Task().InputRequests["confirm"]; !ok || q.Method != mcp.MethodElicitationCreate {
		t.Fatalf("midway: %+v", task.Task())
	}
	if err := task.Answer(t.Context(), map[string]json.RawMessage{"confirm": json.RawMessage(`{"action":"accept","content":{"delete":true}}`)}); err != nil {
		t.Fatal(err)
	}
	r, err := task.Result(t.Context())
	if err != nil || r != (Report{Compacted: 4, Deleted: true}) {
		t.Fatalf("Result: %+v, %v", r, err)
	}
	if task.Task().Status != mcp.TaskCompleted {
		t.Errorf("the handle's task: %+v", task.Task())
	}
	// A bad argument: the task completes with the tool's error, which
	// Result returns as Compact would.
	bad, err := NewArchiveMCPClient(c).StartCompact(t.Context(), 0)
	if err != nil {
		t.Fatal(err)
	}
	var re *runtime.Error
	if _, err := bad.Result(t.Context()); !errors.As(err, &re) || re.Code != runtime.CodeInvalidParams {
		t.Errorf("Result of a bad call: %v", err)
	}
}
