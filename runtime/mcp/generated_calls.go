package mcp

import (
	"context"
	"encoding/json"
	"log/slog"
)

// The functions below are the bodies of a generated typed MCP client's
// methods. A tool's error result becomes the *runtime.Error the server sent
// with it (see MetaError), as the typed JSON-RPC client returns one, or a
// *ToolError when the server sent none.

// CallTool calls the tool name through c with args and returns its
// structured result decoded as an R, or the zero R and the error. It is the
// body of a generated MCP client's methods whose result is a JSON object.
func CallTool[R any](ctx context.Context, c ToolCaller, name string, args any) (R, error) {
	var result R
	if err := c.CallTool(ctx, name, args, &result); err != nil {
		var zero R
		return zero, typedError(err)
	}
	return result, nil
}

// CallToolWrapped is CallTool for a tool whose result is not a JSON object
// (a list, a string, a number), which the server sends wrapped as
// {"result": ...} (see WrapResult): it returns what is under "result".
func CallToolWrapped[R any](ctx context.Context, c ToolCaller, name string, args any) (R, error) {
	var wrapped struct {
		Result R `json:"result"`
	}
	if err := c.CallTool(ctx, name, args, &wrapped); err != nil {
		var zero R
		return zero, typedError(err)
	}
	return wrapped.Result, nil
}

// CallToolNoResult calls a tool whose method returns only an error.
func CallToolNoResult(ctx context.Context, c ToolCaller, name string, args any) error {
	return typedError(c.CallTool(ctx, name, args, nil))
}

// ToolNotifier is a ToolCaller that can call a tool without waiting for its
// result; *Client is one.
type ToolNotifier interface {
	NotifyTool(ctx context.Context, name string, args any) error
}

// NotifyTool calls the tool of a notification method (//rpcgen:method
// notification): like the JSON-RPC client, which sends a notification and
// returns, it returns once the call is on its way, without waiting for the
// tool to run; the result, and any error the tool returns, are dropped. A c
// that is not a ToolNotifier is called and waited for.
func NotifyTool(ctx context.Context, c ToolCaller, name string, args any) error {
	if n, ok := c.(ToolNotifier); ok {
		return n.NotifyTool(ctx, name, args)
	}
	return CallToolNoResult(ctx, c, name, args)
}

// notifyLimit bounds the tool calls a Client runs in the background for
// NotifyTool; one more waits for a slot, so a caller that notifies faster
// than the server answers is slowed down instead of piling up goroutines.
const notifyLimit = 64

// NotifyTool calls the tool name with args in the background and returns
// once the arguments are encoded and a slot is free (at most 64 such calls
// run at once): see the package function NotifyTool. The call is detached
// from ctx's cancellation (a notification, once sent, is not taken back) and
// ends with the client; a failure is logged at debug level.
func (c *Client) NotifyTool(ctx context.Context, name string, args any) error {
	raw, err := json.Marshal(args)
	if err != nil {
		return err
	}
	select {
	case c.notifying <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	go func() {
		defer func() { <-c.notifying }()
		if err := c.CallTool(context.WithoutCancel(ctx), name, json.RawMessage(raw), nil); err != nil {
			c.logger.Debug("mcp: tool called for a notification failed", slog.String("tool", name), slog.Any("err", err))
		}
	}()
	return nil
}
