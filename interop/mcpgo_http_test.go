package interop

import (
	"context"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// TestMCPGoHTTP drives the server with the mcp-go client over its Streamable
// HTTP transport: by default (server/discover, the stateless 2026-07-28
// revision) and pinned to the legacy 2025-11-25 initialize handshake. Each
// runs the stdio suite (in 2026-07-28 with cancellation, which mcp-go does by
// closing the call's stream) and then checks the session's end on the wire: none
// at all in 2026-07-28; DELETE and then 404 for the legacy session.
func TestMCPGoHTTP(t *testing.T) {
	for _, c := range []struct {
		mode string
		opts []client.ClientOption
		want string
	}{
		{"streamable/default", nil, "2026-07-28"},
		{"streamable/legacy", []client.ClientOption{client.WithProtocolVersion("2025-11-25")}, "2025-11-25"},
	} {
		t.Run(c.mode, func(t *testing.T) {
			srv := startHTTPServer(t)
			wire := newHTTPWire(t)
			tr, err := transport.NewStreamableHTTP(srv.url, transport.WithHTTPBasicClient(wire.client()))
			if err != nil {
				t.Fatal(err)
			}
			s := startMCPGo(t, tr, c.opts...)
			s.wire = wire
			if c.want == "2026-07-28" {
				// mcp-go cancels a 2026-07-28 call over HTTP by ending its
				// stream, as the spec says; a legacy one it does not cancel
				// at all over HTTP (no notifications/cancelled), so there
				// is nothing to check there.
				runSuite(t, &mcpGoHTTPCanceller{s, srv}, c.want)
			} else {
				runSuite(t, s, c.want)
			}

			if err := s.c.Close(); err != nil {
				t.Errorf("close: %v", err)
			}
			if c.want == "2026-07-28" {
				checkNoSessions(t, wire)
			} else {
				checkSessionDeleted(t, wire, srv.url)
			}
		})
	}
}

// mcpGoHTTPCanceller is an mcp-go session over HTTP that can cancel a call.
type mcpGoHTTPCanceller struct {
	*mcpGoSession
	srv *httpServer
}

func (s *mcpGoHTTPCanceller) server() *httpServer { return s.srv }

func (s *mcpGoHTTPCanceller) CallToolCancelled(t *testing.T, name string, args, token any) (time.Time, time.Time, error) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	started := time.Now()
	done := make(chan error, 1)
	go func() {
		var req mcp.CallToolRequest
		req.Params.Name = name
		req.Params.Arguments = args
		req.Params.Meta = &mcp.Meta{ProgressToken: token}
		_, err := s.c.CallTool(ctx, req)
		done <- err
	}()
	if !s.wire.log.waitFor(10*time.Second, func() bool { return len(s.Wire(token)) > 0 }) {
		t.Fatalf("no progress from %s within 10s", name)
	}
	cancel()
	err := <-done
	var at time.Time
	if s.wire.log.waitFor(10*time.Second, func() (ok bool) { at, ok = s.wire.cancelledAt(token); return ok }) {
		return started, at, err
	}
	t.Fatalf("mcp-go did not close the cancelled call's stream")
	return started, time.Time{}, err
}
