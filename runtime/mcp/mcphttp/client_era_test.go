package mcphttp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/internal/rpctest"
	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttpclient"
)

// A server restarted as one that speaks only 2026-07-28: a dual-era client
// renews its session as mcphttpclient.Connect negotiates, and so moves to the stateless
// era; a client given a legacy revision keeps to initialize.

// eraGate serves h as a server of one era only, counting what the client
// sent that the other era would have.
type eraGate struct {
	h         http.Handler
	modern    bool         // only 2026-07-28; else only the session-based era
	discovers atomic.Int32 // server/discover requests seen
	inits     atomic.Int32 // initialize requests seen
}

func (g *eraGate) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		if g.modern {
			http.Error(w, "no sessions here", http.StatusMethodNotAllowed)
			return
		}
		g.h.ServeHTTP(w, r)
		return
	}
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	_ = json.Unmarshal(body, &msg)
	switch msg.Method {
	case "server/discover":
		g.discovers.Add(1)
		if !g.modern { // a 2025-11-25 server: no session, no such request
			http.Error(w, "Bad Request: missing session", http.StatusBadRequest)
			return
		}
	case "initialize":
		g.inits.Add(1)
		if g.modern { // a 2026-07-28 server names its versions (spec: SHOULD)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":` + string(msg.ID) +
				`,"error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2026-07-28"],"requested":"2025-11-25"}}}`))
			return
		}
	}
	g.h.ServeHTTP(w, r)
}

// After the restart, the dual-era client speaks 2026-07-28 to the new
// server: OnSessionChanged names the new revision, the accessors return
// the new server's, its subscription is back through subscriptions/listen
// and calls go stateless. A client pinned to 2025-11-25 never probes and
// keeps failing to initialize, as asked.
func TestClientSessionEraUpgrade(t *testing.T) {
	for _, tc := range []struct {
		name    string
		version string // mcphttpclient.Options.ProtocolVersion
	}{
		{"dual-era", ""},
		{"pinned-2025-11-25", mcp.Version20251125},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rpctest.CheckLeaks(t)
			var runs1, runs2 atomic.Int32
			srv1 := upgradeServer("1", "old", true, true, &runs1)
			h1 := NewHandler(srv1, nil)
			t.Cleanup(func() { h1.Close() })
			g1 := &eraGate{h: h1}
			var sw anyHandler
			sw.set(g1)
			ts := httptest.NewServer(&sw)
			t.Cleanup(ts.Close)

			changed := make(chan [2]mcpclient.SessionInfo, 4)
			renewed := make(chan error, 64)
			updates := make(chan string, 8)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			c, err := mcphttpclient.Connect(ctx, ts.URL+"/mcp", &mcphttpclient.Options{Transport: "streamable", MCP: mcpclient.Options{
				ProtocolVersion:  tc.version,
				OnSessionChanged: func(old, new mcpclient.SessionInfo) { changed <- [2]mcpclient.SessionInfo{old, new} },
				OnSessionExpired: func(err error) {
					select {
					case renewed <- err:
					default: // the pinned client tries again and again
					}
				},
				OnResourceUpdated: func(uri string) { updates <- uri },
				Retry:             runtime.RetryPolicy{MinDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond},
			}})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if c.Modern() || c.ProtocolVersion() != mcp.Version20251125 {
				t.Fatalf("connected with %s to a 2025-11-25 server", c.ProtocolVersion())
			}
			if err := c.Subscribe(ctx, featureURI); err != nil {
				t.Fatal(err)
			}

			srv2 := upgradeServer("2", "new", true, true, &runs2)
			h2 := NewHandler(srv2, nil)
			t.Cleanup(func() { h2.Close() })
			g2 := &eraGate{h: h2, modern: true}
			sw.set(g2)
			h1.Close() // the old server forgets its session: 404
			_ = c.Ping(runtime.WithoutRetry(ctx))

			if tc.version != "" {
				err := recv(t, renewed, "OnSessionExpired")
				if !errors.Is(err, mcpclient.ErrSessionExpired) {
					t.Fatalf("OnSessionExpired(%v), want a failed attempt (the new server has no initialize)", err)
				}
				if n := g2.discovers.Load(); n != 0 {
					t.Errorf("a client pinned to %s sent server/discover %d times", tc.version, n)
				}
				if c.Modern() || c.ProtocolVersion() != tc.version {
					t.Errorf("a pinned client moved to %s", c.ProtocolVersion())
				}
				return
			}

			got := recv(t, changed, "OnSessionChanged")
			if err := recv(t, renewed, "OnSessionExpired"); err != nil {
				t.Fatalf("OnSessionExpired(%v), want nil", err)
			}
			if got[0].ProtocolVersion != mcp.Version20251125 || got[0].Instructions != "old" {
				t.Errorf("old session %+v", got[0])
			}
			want := mcpclient.SessionInfo{ProtocolVersion: mcp.Version20260728, ServerInfo: mcp.Implementation{Name: "up", Version: "2"}, Instructions: "new"}
			if n := got[1]; n.ProtocolVersion != want.ProtocolVersion || !reflect.DeepEqual(n.ServerInfo, want.ServerInfo) || n.Instructions != want.Instructions {
				t.Errorf("new session %+v, want %+v", n, want)
			}
			if !c.Modern() || c.ProtocolVersion() != mcp.Version20260728 || c.ServerInfo().Version != "2" || c.Instructions() != "new" {
				t.Errorf("the client after the switch: modern %v, %+v", c.Modern(), c.Session())
			}
			srv2.ResourceUpdated(featureURI)
			if uri := recv(t, updates, "the update after the switch"); uri != featureURI {
				t.Fatalf("update for %q", uri)
			}
			if _, err := c.CallToolRaw(ctx, mcp.CallToolParams{Name: "lookup"}); err != nil {
				t.Fatalf("a call in 2026-07-28: %v", err)
			}
			if n := runs2.Load(); n != 1 {
				t.Errorf("the new lookup ran %d times, want 1", n)
			}
			if n := g2.inits.Load(); n != 0 {
				t.Errorf("the new server got initialize %d times, want 0 (the probe found 2026-07-28)", n)
			}
			select {
			case err := <-renewed:
				t.Fatalf("a second renewal: %v", err)
			default:
			}
		})
	}
}
