package main

import (
	"context"
	"encoding/json"
	"time"

	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
)

type jobArgs struct {
	Tag string `json:"tag"`
	Ms  int    `json:"ms"`
}

// taskTools: job runs as a task (always) for ms milliseconds (at most a
// minute), its progress saying which replica runs it, and returns its tag
// and that replica; job_idem is the same tool declared idempotent, which
// a replica's worker runs again when the one running it died.
func (r *replica) taskTools() []mcpserver.Tool {
	obj := json.RawMessage(`{"type":"object","properties":{"tag":{"type":"string"},"ms":{"type":"integer"}}}`)
	run := func(ctx context.Context, raw json.RawMessage) (json.RawMessage, error) {
		var a jobArgs
		if len(raw) > 0 {
			if err := json.Unmarshal(raw, &a); err != nil {
				return nil, err
			}
		}
		mcpserver.Progress(ctx, 0, 1, "running on replica "+r.name)
		t := time.NewTimer(min(time.Duration(a.Ms)*time.Millisecond, time.Minute))
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return r.result(`"tag":%q`, a.Tag)
	}
	yes := true
	return []mcpserver.Tool{
		{Name: "job", Description: "runs ms milliseconds as a task", InputSchema: obj, Task: mcpserver.TaskRequired, Handler: run},
		{Name: "job_idem", Description: "job, declared idempotent", InputSchema: obj, Task: mcpserver.TaskRequired, Handler: run,
			Annotations: &mcp.ToolAnnotations{IdempotentHint: &yes}},
	}
}
