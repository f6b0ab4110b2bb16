package mcpclient

import (
	"context"
	"errors"

	"github.com/rpcgen/rpcgen/runtime/mcp"
)

// ConnectSession connects to a server session in the same process: every
// request is one synchronous (*Session).Handle call on the caller's
// goroutine, with no encoding beyond the messages themselves and no
// goroutines per call. A call's context is the context the tool runs in, so
// cancelling it stops the tool without a notifications/cancelled message;
// progress and log callbacks run on the calling goroutine. A Session holds
// one connection's state (a legacy handshake among it): give each Client its
// own. Messages the session sends unprompted (resource updates, list
// changes) reach the client's handlers on the goroutine that caused them.
// Closing the client closes the session.
func ConnectSession(ctx context.Context, ss *mcp.Session, opts Options) (*Client, error) {
	return ConnectTransport(ctx, sessionTransport{ss}, opts)
}

// sessionTransport is the Transport to an in-process Session.
type sessionTransport struct{ ss *mcp.Session }

func (t sessionTransport) RoundTrip(ctx context.Context, id int64, msg []byte, incoming func([]byte)) ([]byte, error) {
	reply := t.ss.Handle(ctx, msg, incoming)
	if reply == nil && ctx.Err() == nil {
		return nil, errors.New("mcp: the session sent no response")
	}
	return reply, nil
}

// AnswersEveryRequest reports that the session answers every request: a
// dual-era client waits for its answer to server/discover.
func (t sessionTransport) AnswersEveryRequest() bool { return true }

// SetIncoming makes the session's unprompted messages (resource updates,
// list changes) the client's incoming ones.
func (t sessionTransport) SetIncoming(incoming func(msg []byte)) { t.ss.SetOutbound(incoming) }

func (t sessionTransport) Send(ctx context.Context, msg []byte) error {
	t.ss.Handle(ctx, msg, nil)
	return nil
}

func (t sessionTransport) Close() error {
	t.ss.Close()
	return nil
}
