package mcpclient

import (
	"context"
	"encoding/json"
	"log/slog"
)

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
