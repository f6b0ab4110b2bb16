package interop

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestGoSDKReplicaRedisRestart: the Go SDK client in a legacy session
// through the proxy to three replicas, while Redis is stopped (SIGTERM)
// and started again. With an append-only file the session survives: the
// client's calls work again, and it hears what is announced after the
// restart. Without persistence the session is gone: every later call of
// the client fails (the SDK does not start a new session on 404, although
// the spec says a client MUST), and the application has to connect again,
// which works. docs/replicas.md says so.
func TestGoSDKReplicaRedisRestart(t *testing.T) {
	for _, tc := range []struct {
		name  string
		extra []string
		keeps bool
	}{
		{"appendonly", []string{"--appendonly"}, true},
		{"memory", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := startCluster(t, tc.extra...)
			texts := make(chan string, 64)
			client := mcp.NewClient(&mcp.Implementation{Name: "interop-go-sdk", Version: "1"}, &mcp.ClientOptions{
				//lint:ignore SA1019 logging is deprecated in 2026-07-28 but still served in legacy sessions, and tested here
				LoggingMessageHandler: func(_ context.Context, req *mcp.LoggingMessageRequest) {
					var d struct{ Text string }
					_ = remarshal(req.Params.Data, &d)
					texts <- d.Text
				},
			})
			ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
			defer cancel()
			connect := func() *mcp.ClientSession {
				t.Helper()
				cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: c.url, HTTPClient: newHTTPWire(t).client()},
					&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
				if err != nil {
					t.Fatalf("connect: %v", err)
				}
				t.Cleanup(func() { cs.Close() })
				return cs
			}
			announce := func(cs *mcp.ClientSession, text string) error {
				_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "announce", Arguments: map[string]string{"text": text}})
				return err
			}
			heard := func(text string, within time.Duration) bool {
				for timeout := time.After(within); ; {
					select {
					case got := <-texts:
						if got == text {
							return true
						}
					case <-timeout:
						return false
					}
				}
			}
			cs := connect()
			for k := 0; ; k++ {
				if err := announce(cs, fmt.Sprintf("ready%d", k)); err != nil {
					t.Fatalf("announce: %v", err)
				}
				if heard(fmt.Sprintf("ready%d", k), 2*time.Second) {
					break
				}
				if k == 10 {
					t.Fatal("the standalone stream did not open")
				}
			}
			c.command(t, "restart", "cluster: redis restarted")
			// Calls may fail while the replicas reconnect (503).
			deadline := time.Now().Add(30 * time.Second)
			var err error
			through := false // an announcement made after the restart was heard
			for k := 0; time.Now().Before(deadline); k++ {
				text := fmt.Sprintf("after%d", k)
				if err = announce(cs, text); err == nil && heard(text, 3*time.Second) {
					through = true
					break
				}
				if sessionMissing(err) {
					break
				}
			}
			if tc.keeps {
				if !through {
					t.Fatalf("the session did not survive the restart: %v", err)
				}
				return
			}
			if !sessionMissing(err) {
				t.Fatalf("after a restart without persistence: %v, want the SDK's ErrSessionMissing", err)
			}
			if err := announce(cs, "again"); err == nil {
				t.Fatal("the SDK's session works again: docs/replicas.md says it does not")
			}
			cs2 := connect()
			if err := announce(cs2, "new"); err != nil {
				t.Fatalf("a new session after the restart: %v", err)
			}
		})
	}
}

// sessionMissing reports whether err is the SDK's word that the session is
// gone. When its POST meets the 404 first, the error wraps
// mcp.ErrSessionMissing; when its standalone GET stream meets it first, the
// connection fails with "standalone SSE stream: ...: session not found" and
// the calls after it get that failure formatted into their own error, no
// longer wrapped (go-sdk 1.8.0), which under load is the more common order.
func sessionMissing(err error) bool {
	return err != nil && (errors.Is(err, mcp.ErrSessionMissing) || strings.Contains(err.Error(), mcp.ErrSessionMissing.Error()))
}
