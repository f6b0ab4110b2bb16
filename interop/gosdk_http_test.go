package interop

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestGoSDKHTTP drives the server over HTTP with the official Go SDK client:
// its Streamable HTTP transport in its default mode (server/discover, the
// stateless 2026-07-28 revision) and pinned to the legacy 2025-11-25
// initialize handshake, and its HTTP+SSE transport (2024-11-05), in both
// modes too. Each runs
// the stdio suite, cancellation included, and then checks the session's end
// on the wire: no session at all in 2026-07-28; DELETE and then 404 for a
// Streamable HTTP session; a 404 for the endpoint of a closed SSE stream.
func TestGoSDKHTTP(t *testing.T) {
	for _, c := range []struct {
		mode, pin, want string
		sse             bool
	}{
		{"streamable/default", "", "2026-07-28", false},
		{"streamable/legacy", "2025-11-25", "2025-11-25", false},
		// By default the SDK probes server/discover even over HTTP+SSE, and
		// the server answers it: the session speaks 2026-07-28 messages.
		{"sse/default", "", "2026-07-28", true},
		{"sse/legacy", "2025-11-25", "2025-11-25", true},
	} {
		t.Run(c.mode, func(t *testing.T) {
			srv := startHTTPServer(t)
			wire := newHTTPWire(t)
			var tr mcp.Transport
			if c.sse {
				tr = &mcp.SSEClientTransport{Endpoint: srv.url, HTTPClient: wire.client()}
			} else {
				tr = &mcp.StreamableClientTransport{Endpoint: srv.url, HTTPClient: wire.client()}
			}
			s := connectGoSDKOver(t, tr, c.pin)
			s.wire, s.srv = wire, srv
			runSuite(t, s, c.want)

			if err := s.cs.Close(); err != nil {
				t.Errorf("close: %v", err)
			}
			switch {
			case c.sse:
				checkSSESessionEnded(t, wire, srv.url)
			case c.want == "2026-07-28":
				checkNoSessions(t, wire)
			default:
				checkSessionDeleted(t, wire, srv.url)
			}
		})
	}
}

// connectGoSDKOver connects the Go SDK client over tr, recording what it
// reads and writes. The context of Connect must outlive the session: the
// SDK's SSEClientTransport ties its GET stream to it.
func connectGoSDKOver(t *testing.T, tr mcp.Transport, pin string) *goSDKSession {
	t.Helper()
	ctx := context.Background()
	rec := &recordingTransport{inner: tr}
	client := mcp.NewClient(&mcp.Implementation{Name: "interop-go-sdk", Version: "1"}, nil)
	cs, err := client.Connect(ctx, rec, &mcp.ClientSessionOptions{ProtocolVersion: pin})
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return &goSDKSession{cs: cs, rec: rec}
}
