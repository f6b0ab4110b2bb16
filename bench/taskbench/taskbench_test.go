package taskbench

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/rpcgen/rpcgen/bench/mcpbench"

	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
	"github.com/rpcgen/rpcgen/runtime/mcp/tasks"
)

// echo returns its arguments' "n" as its structured result.
func echo(_ context.Context, args json.RawMessage) (json.RawMessage, error) {
	var a struct {
		N int `json:"n"`
	}
	if err := json.Unmarshal(args, &a); err != nil {
		return nil, err
	}
	return json.Marshal(a)
}

// setup returns a client of a server with the tool "plain" and the same
// tool as "task" (TaskRequired), and the server's task manager, its tasks
// in memory.
func setup(b *testing.B) (*mcpclient.Client, *tasks.Manager) {
	return setupWith(b, nil, nil)
}

// setupWith is setup with the task manager's options, and start (when not
// nil) called with the manager and server once enabled.
func setupWith(b *testing.B, opts *tasks.Options, start func(*tasks.Manager, *mcpserver.Server)) (*mcpclient.Client, *tasks.Manager) {
	srv := mcpserver.New(mcp.Implementation{Name: "taskbench", Version: "1"}, nil)
	m := tasks.Enable(srv, opts)
	b.Cleanup(m.Close)
	if start != nil {
		start(m, srv)
	}
	schema := json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}}}`)
	srv.AddTools(
		mcpserver.Tool{Name: "plain", InputSchema: schema, OutputSchema: schema, Handler: echo},
		mcpserver.Tool{Name: "task", InputSchema: schema, OutputSchema: schema, Handler: echo, Task: mcpserver.TaskRequired},
	)
	c, err := mcpclient.ConnectTransport(b.Context(), srv.InProcess(), mcpclient.Options{
		ProtocolVersion: mcp.Version20260728,
		Extensions:      []mcp.Extension{{ID: mcp.TasksExtensionID}},
	})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	return c, m
}

type result struct {
	N int `json:"n"`
}

func BenchmarkTaskOverhead(b *testing.B) {
	b.Run("plain", func(b *testing.B) {
		c, _ := setup(b)
		ctx := b.Context()
		b.ReportAllocs()
		cpu0 := mcpbench.CPUTime()
		defer func() { b.ReportMetric(float64(mcpbench.CPUTime()-cpu0)/float64(b.N), "cpu-ns/op") }()
		n := 0
		for b.Loop() {
			n++
			var r result
			if err := c.CallTool(ctx, "plain", result{n}, &r); err != nil || r.N != n {
				b.Fatalf("plain: %+v, %v", r, err)
			}
		}
	})
	b.Run("task-get", func(b *testing.B) {
		c, m := setup(b)
		ctx := b.Context()
		b.ReportAllocs()
		cpu0 := mcpbench.CPUTime()
		defer func() { b.ReportMetric(float64(mcpbench.CPUTime()-cpu0)/float64(b.N), "cpu-ns/op") }()
		n := 0
		for b.Loop() {
			n++
			h, _, err := c.StartTool(ctx, "task", result{n})
			if err != nil || h == nil {
				b.Fatalf("StartTool: %v, %v", h, err)
			}
			if err := ended(ctx, m.Store(), h.ID()); err != nil {
				b.Fatal(err)
			}
			t, err := h.Refresh(ctx)
			if err != nil || t.Status != mcp.TaskCompleted {
				b.Fatalf("tasks/get: %+v, %v", t, err)
			}
			var r result
			if err := h.Decode(ctx, &r); err != nil || r.N != n {
				b.Fatalf("result: %+v, %v", r, err)
			}
			forget(ctx, b, m, h.ID())
		}
	})
	b.Run("task-follow", func(b *testing.B) {
		c, m := setup(b)
		ctx := b.Context()
		b.ReportAllocs()
		cpu0 := mcpbench.CPUTime()
		defer func() { b.ReportMetric(float64(mcpbench.CPUTime()-cpu0)/float64(b.N), "cpu-ns/op") }()
		n := 0
		for b.Loop() {
			n++
			// CallTool's path (StartTool, then following the task), with
			// the task's ID at hand to forget it.
			h, _, err := c.StartTool(ctx, "task", result{n})
			if err != nil || h == nil {
				b.Fatalf("StartTool: %v, %v", h, err)
			}
			var r result
			if err := h.Decode(ctx, &r); err != nil || r.N != n {
				b.Fatalf("task: %+v, %v", r, err)
			}
			forget(ctx, b, m, h.ID())
		}
	})
}

// forget deletes the ended task id, so that the store (at most 10,000
// live tasks) does not fill up however long the benchmark runs.
func forget(ctx context.Context, b *testing.B, m *tasks.Manager, id string) {
	if err := m.Store().Delete(ctx, id); err != nil {
		b.Fatal(err)
	}
}

// ended waits, on the store's change signals, until the task id ended.
func ended(ctx context.Context, s tasks.Store, id string) error {
	_, err := endedGets(ctx, s, id)
	return err
}

// endedGets is ended, which also says how many times it read the task.
func endedGets(ctx context.Context, s tasks.Store, id string) (gets int, _ error) {
	changes, stop := s.Subscribe(id)
	defer stop()
	for {
		gets++
		r, err := s.Get(ctx, id)
		if err != nil {
			return gets, err
		}
		if r.Status.Terminal() {
			return gets, nil
		}
		select {
		case <-changes:
		case <-ctx.Done():
			return gets, errors.New("the task did not end")
		}
	}
}
