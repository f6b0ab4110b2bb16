package mcphttp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rpcgen/rpcgen/internal/rpctest"
	"github.com/rpcgen/rpcgen/runtime/mcp"
)

// TestSlowBodies: 2,000 connections that send their headers and the start
// of a body, then stall, are each answered 408 with a JSON-RPC error and
// closed once Options.BodyReadTimeout (30 s by default) has passed, in
// virtual time; a body that arrives in time is served, and the deadline does
// not cut the call that follows (here one that takes a minute).
func TestSlowBodies(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := mcp.NewServer(mcp.Implementation{Name: "slow", Version: "1"}, nil)
		srv.AddTools(mcp.Tool{Name: "minute", InputSchema: json.RawMessage(`{"type":"object"}`),
			Handler: func(context.Context, json.RawMessage) (json.RawMessage, error) {
				time.Sleep(time.Minute)
				return json.RawMessage(`{"ok":true}`), nil
			}})
		h := NewHandler(srv, nil)
		t.Cleanup(func() { h.Close() })
		ts := rpctest.NewPipeServer(t, h, nil)
		dial := ts.Client().Transport.(*http.Transport).DialContext

		const conns = 2000
		start := time.Now()
		type result struct {
			status int
			body   string
			closed bool
			at     time.Duration
		}
		results := make(chan result, conns)
		for range conns {
			go func() {
				c, err := dial(context.Background(), "tcp", "")
				if err != nil {
					results <- result{status: -1, body: err.Error()}
					return
				}
				defer c.Close()
				body := modernCall(1, "minute", `{}`)
				fmt.Fprintf(c, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: %d\r\n\r\n%s", len(body), body[:10])
				br := bufio.NewReader(c)
				resp, err := http.ReadResponse(br, nil)
				if err != nil {
					results <- result{status: -1, body: err.Error()}
					return
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				_, err = br.ReadByte() // the server closes the connection
				results <- result{resp.StatusCode, string(b), err == io.EOF, time.Since(start)}
			}()
		}
		for range conns {
			r := <-results
			if r.status != http.StatusRequestTimeout || !strings.Contains(r.body, `"code":-32600`) || !r.closed {
				t.Fatalf("a stalled body: %d %q, connection closed %v", r.status, r.body, r.closed)
			}
			if r.at < 30*time.Second || r.at > 31*time.Second {
				t.Fatalf("a stalled body was cut after %v, want 30s", r.at)
			}
		}

		// In time, and a call longer than the deadline.
		req, _ := http.NewRequest(http.MethodPost, ts.URL+"/mcp", strings.NewReader(modernCall(2, "minute", `{}`)))
		for k, v := range map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
			"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "minute"} {
			req.Header.Set(k, v)
		}
		resp, err := ts.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(b), `"ok":true`) {
			t.Fatalf("a call of a minute: %d %s", resp.StatusCode, b)
		}
	})
}
