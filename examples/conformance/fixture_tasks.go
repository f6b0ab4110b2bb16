package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/ask"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
)

// taskTools implements Tasks.
type taskTools struct {
	step time.Duration // the pause of FailingJob and ToolWithTask
}

var _ Tasks = (*taskTools)(nil)

// maxSeconds bounds SlowCompute's work.
const maxSeconds = 3600

// wait waits for d or for ctx to end.
func wait(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (*taskTools) Greet(_ context.Context, name string) (mcp.Content, error) {
	return mcp.TextContent("Hello, " + name + "!"), nil
}

func (*taskTools) SlowCompute(ctx context.Context, seconds int, label string) (mcp.Content, error) {
	if seconds < 0 || seconds > maxSeconds {
		return mcp.Content{}, runtime.InvalidParams("seconds must be 0 to %d", maxSeconds)
	}
	for i := range seconds {
		mcpserver.Progress(ctx, float64(i), float64(seconds), fmt.Sprintf("%s: %d of %d seconds", label, i, seconds))
		if err := wait(ctx, time.Second); err != nil {
			return mcp.Content{}, err
		}
	}
	return mcp.TextContent(fmt.Sprintf("computed %s in %d seconds", label, seconds)), nil
}

func (t *taskTools) FailingJob(ctx context.Context) (mcp.Content, error) {
	if err := wait(ctx, t.step); err != nil {
		return mcp.Content{}, err
	}
	return mcp.Content{}, errors.New("the job failed, as it always does")
}

func (*taskTools) ProtocolErrorJob(context.Context) (mcp.Content, error) {
	return mcp.Content{}, mcpserver.ProtocolError(&runtime.Error{Code: runtime.CodeInternalError, Message: "the job broke down"})
}

// confirmForm asks for one boolean, "confirm".
var confirmForm = json.RawMessage(`{"type":"object","properties":{"confirm":{"type":"boolean"}},"required":["confirm"]}`)

func (*taskTools) ConfirmDelete(ctx context.Context, filename string) (mcp.Content, error) {
	res, err := ask.Elicit(ctx, &mcp.ElicitParams{Message: "Delete " + filename + "?", RequestedSchema: confirmForm}, ask.Key("confirm"))
	if err != nil {
		return mcp.Content{}, err
	}
	if field(res, "confirm") != "true" {
		return mcp.TextContent("kept " + filename), nil
	}
	return mcp.TextContent("deleted " + filename), nil
}

func (*taskTools) MultiInput(ctx context.Context) (mcp.Content, error) {
	keys := [2]string{"first", "second"}
	var (
		wg      sync.WaitGroup
		answers [2]*mcp.ElicitResult
		errs    [2]error
	)
	for i, key := range keys {
		wg.Go(func() {
			answers[i], errs[i] = ask.Elicit(ctx, &mcp.ElicitParams{
				Message:         "Your " + key + " answer?",
				RequestedSchema: oneString("name"),
			}, ask.Key(key))
		})
	}
	wg.Wait()
	if err := errors.Join(errs[:]...); err != nil {
		return mcp.Content{}, err
	}
	return mcp.TextContent(fmt.Sprintf("first: %s, second: %s", field(answers[0], "name"), field(answers[1], "name"))), nil
}

func (t *taskTools) ToolWithTask(ctx context.Context) (mcp.Content, error) {
	res, err := ask.Elicit(ctx, &mcp.ElicitParams{Message: "What is your name?", RequestedSchema: oneString("name")}, ask.Key("user_name"))
	if err != nil {
		return mcp.Content{}, err
	}
	if err := mcpserver.BeginTask(ctx); err != nil {
		return mcp.Content{}, err
	}
	if err := wait(ctx, t.step); err != nil {
		return mcp.Content{}, err
	}
	return mcp.TextContent("Hello, " + field(res, "name") + "!"), nil
}
