package mcphttp

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"testing"

	"github.com/rpcgen/rpcgen/internal/rpctest"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttpclient"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
)

// incomingSetter is how mcpclient.ConnectTransport hands a transport the
// Client's handler of messages not related to any request.
type incomingSetter interface{ SetIncoming(func(msg []byte)) }

// clientUpdates runs a legacy session over tr, subscribes to featureURI,
// and checks that resources/updated, sent while no call is in flight,
// reaches the transport's incoming function.
func clientUpdates(t *testing.T, tr mcpclient.Transport, srv *mcpserver.Server, version string) {
	t.Helper()
	got := make(chan []byte, 8)
	tr.(incomingSetter).SetIncoming(func(msg []byte) { got <- msg })
	ctx := context.Background()
	reply, err := tr.RoundTrip(ctx, 1, []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"`+version+
		`","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`), func([]byte) {})
	if err != nil || parseMsg(t, string(reply)).Error != nil {
		t.Fatalf("initialize: %s, %v", reply, err)
	}
	if err := tr.Send(ctx, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)); err != nil {
		t.Fatalf("notifications/initialized: %v", err)
	}
	reply, err = tr.RoundTrip(ctx, 2, []byte(`{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"`+featureURI+`"}}`), func([]byte) {})
	if err != nil || !rpctest.SameJSON(t, string(reply), `{"jsonrpc":"2.0","id":2,"result":{}}`) {
		t.Fatalf("resources/subscribe: %s, %v", reply, err)
	}
	srv.ResourceUpdated(featureURI)
	wantUpdated(t, parseMsg(t, string(recv(t, got, "the update"))))
	if err := tr.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
}

// The Streamable HTTP client transport opens a legacy session's standalone
// stream for its incoming function, and closes it with the transport.
func TestClientStandaloneStream(t *testing.T) {
	rpctest.CheckLeaks(t)
	hn, srv := newFeatureHarness(t, nil, false)
	clientUpdates(t, mcphttpclient.NewStreamableTransport(hn.url, nil), srv, mcp.Version20251125)
	eventually(t, hn.h, "the session ends", func() bool { return hn.h.SessionCount() == 0 })
}

// The HTTP+SSE client transport hands its incoming function what comes
// while no call waits.
func TestClientSSEIncoming(t *testing.T) {
	rpctest.CheckLeaks(t)
	srv := newFeatureServer()
	h := NewHandler(srv, nil)
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	t.Cleanup(func() { h.Close() })
	tr, err := mcphttpclient.DialSSE(context.Background(), ts.URL+"/mcp", nil)
	if err != nil {
		t.Fatal(err)
	}
	clientUpdates(t, tr, srv, mcp.Version20250618)
}

// An mcpclient.Client over each HTTP transport answers a tool's elicitation
// (legacy: a request on the call's stream, answered by a POST; 2026-07-28:
// input_required and a retry) and hears resources/updated after Subscribe.
func TestClientFeaturesEndToEnd(t *testing.T) {
	for _, tc := range []struct {
		name      string
		transport string
		version   string
	}{
		{"streamable-2025-11-25", "streamable", mcp.Version20251125},
		{"streamable-2025-06-18", "streamable", mcp.Version20250618},
		{"sse-2025-06-18", "sse", mcp.Version20250618},
		{"modern", "streamable", mcp.Version20260728},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rpctest.CheckLeaks(t)
			hn, srv := newFeatureHarness(t, nil, false)
			ctx := context.Background()
			var tr mcpclient.Transport
			if tc.transport == "sse" {
				var err error
				if tr, err = mcphttpclient.DialSSE(ctx, hn.url, nil); err != nil {
					t.Fatal(err)
				}
			} else {
				tr = mcphttpclient.NewStreamableTransport(hn.url, nil)
			}
			updated := make(chan string, 8)
			c, err := mcpclient.ConnectTransport(ctx, tr, mcpclient.Options{
				ProtocolVersion: tc.version,
				OnElicit: func(_ context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
					return &mcp.ElicitResult{Action: "accept", Content: json.RawMessage(`{"name":"Flo"}`)}, nil
				},
				OnResourceUpdated: func(uri string) { updated <- uri },
			})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			var res struct{ Action, Name string }
			if err := c.CallTool(ctx, "ask", struct{}{}, &res); err != nil || res.Name != "Flo" || res.Action != "accept" {
				t.Fatalf("ask: %+v, %v", res, err)
			}
			if err := c.Subscribe(ctx, featureURI); err != nil {
				t.Fatalf("Subscribe: %v", err)
			}
			srv.ResourceUpdated(featureURI)
			if uri := recv(t, updated, "the update"); uri != featureURI {
				t.Fatalf("updated %q, want %q", uri, featureURI)
			}
		})
	}
}
