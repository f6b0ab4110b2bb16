package mcpserver

import (
	"context"
	"errors"
)

// InProcess returns a new session of s as a transport for a client in the
// same process: pass it to mcpclient.ConnectTransport. Every request is one
// synchronous Handle call on the caller's goroutine, with no encoding beyond
// the messages themselves and no goroutines per call. A call's context is
// the context the tool runs in, so cancelling it stops the tool without a
// notifications/cancelled message; progress and log callbacks run on the
// calling goroutine. Messages the session sends unprompted (resource
// updates, list changes) reach the client on the goroutine that caused
// them. The session holds one connection's state (a legacy handshake among
// it): give each client its own. Closing the client closes the session.
func (s *Server) InProcess() *InProcessTransport {
	ss, ctl := s.NewTransportSession()
	return &InProcessTransport{ss: ss, ctl: ctl}
}

// InProcessTransport carries a client's messages to a session in the same
// process (see Server.InProcess). It implements mcpclient.Transport and two
// of its optional capabilities: mcpclient.IncomingSetter (unprompted
// messages) and mcpclient.RequestAnswerer (the session answers every
// request).
type InProcessTransport struct {
	ss  *Session
	ctl SessionControl
}

// Session returns the session the transport carries messages to.
func (t *InProcessTransport) Session() *Session { return t.ss }

// Control returns the control of the session the transport carries
// messages to, for the code that plays the rest of a transport's part (to
// give the session an id, say).
func (t *InProcessTransport) Control() SessionControl { return t.ctl }

// RoundTrip hands the request msg to the session and returns its response;
// incoming receives what the session sends about the request before it.
func (t *InProcessTransport) RoundTrip(ctx context.Context, _ int64, msg []byte, incoming func([]byte)) ([]byte, error) {
	reply := t.ss.Handle(ctx, msg, incoming)
	if reply == nil && ctx.Err() == nil {
		return nil, errors.New("mcp: the session sent no response")
	}
	return reply, nil
}

// AnswersEveryRequest reports that the session answers every request: a
// dual-era client waits for its answer to server/discover.
func (t *InProcessTransport) AnswersEveryRequest() bool { return true }

// SetIncoming makes the session's unprompted messages (resource updates,
// list changes) the client's incoming ones.
func (t *InProcessTransport) SetIncoming(incoming func(msg []byte)) { t.ctl.SetOutbound(incoming) }

// Send hands the notification or response msg to the session.
func (t *InProcessTransport) Send(ctx context.Context, msg []byte) error {
	t.ss.Handle(ctx, msg, nil)
	return nil
}

// Close ends the session.
func (t *InProcessTransport) Close() error {
	t.ss.Close()
	return nil
}
