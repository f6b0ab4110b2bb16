package main

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/ask"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
)

// maxBatches bounds one compaction.
const maxBatches = 10000

// archive implements Archive.
type archive struct {
	// step is how long a batch takes (0 in tests).
	step time.Duration
	// log hears of compactions stopped by their context (a cancelled task).
	log *slog.Logger
}

var _ Archive = (*archive)(nil)

// confirmForm asks for one boolean, "delete".
const confirmForm = `{"type":"object","properties":{"delete":{"type":"boolean","description":"Delete the originals once compacted"}},"required":["delete"]}`

func (a *archive) Compact(ctx context.Context, batches int) (Report, error) {
	if batches < 1 || batches > maxBatches {
		return Report{}, runtime.InvalidParams("batches must be 1 to %d", maxBatches)
	}
	var r Report
	for i := range batches {
		if i == batches/2 {
			// Midway: the task is input_required until the client answers.
			res, err := ask.Elicit(ctx, &mcp.ElicitParams{
				Message:         fmt.Sprintf("Compacted %d of %d batches. Go on, and delete the originals?", i, batches),
				RequestedSchema: []byte(confirmForm),
			}, ask.Key("confirm"))
			if err != nil {
				return r, err
			}
			if res.Action != "accept" || string(res.Content) != `{"delete":true}` {
				return r, nil // stopped here, originals kept
			}
			r.Deleted = true
		}
		mcpserver.Progress(ctx, float64(i), float64(batches), fmt.Sprintf("compacting batch %d of %d", i+1, batches))
		if err := a.batch(ctx); err != nil {
			// Cancelled: the task ends cancelled. The log line says the
			// tool saw it (interop/ts/tasks.test.mjs waits for it).
			a.log.Info("compaction stopped", "batches", batches, "compacted", r.Compacted, "cause", context.Cause(ctx))
			return r, err
		}
		r.Compacted++
	}
	return r, nil
}

// batch compacts one batch: it takes a.step, or ends with ctx.
func (a *archive) batch(ctx context.Context) error {
	if a.step <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(a.step)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
