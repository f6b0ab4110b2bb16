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
	goruntime "runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/internal/rpctest"
	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttpclient"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
)

// A server restarted as another version of itself: the client's new session
// takes what the new server negotiates, and Close gives up a renewal.

// upgradeServer serves "lookup" (read-only when readOnly says so, counting
// its runs) and, when resources is set, featureURI to subscribe to.
func upgradeServer(version, instructions string, resources, readOnly bool, runs *atomic.Int32) *mcpserver.Server {
	srv := mcpserver.New(mcp.Implementation{Name: "up", Version: version}, &mcpserver.Options{Instructions: instructions})
	var ann *mcp.ToolAnnotations
	if readOnly {
		ann = &mcp.ToolAnnotations{ReadOnlyHint: mcp.Bool(true)}
	}
	srv.AddTools(mcpserver.Tool{Name: "lookup", InputSchema: json.RawMessage(`{"type":"object"}`), Annotations: ann,
		Handler: func(context.Context, json.RawMessage) (json.RawMessage, error) {
			return json.Marshal(map[string]int32{"runs": runs.Add(1)})
		}})
	if resources {
		srv.AddResources(mcpserver.Resource{URI: featureURI, Name: "feature", MIMEType: "text/plain",
			Handler: func(_ context.Context, req *mcpserver.ReadResourceRequest) ([]mcp.ResourceContents, error) {
				return []mcp.ResourceContents{{URI: req.URI, MIMEType: "text/plain", Text: "v"}}, nil
			}})
	}
	return srv
}

// offering makes h answer initialize as a server that speaks at most
// version does: it asks h for version whatever the client offered.
func offering(version string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.Header.Get("Mcp-Session-Id") == "" {
			body, _ := io.ReadAll(r.Body)
			var msg map[string]any
			if json.Unmarshal(body, &msg) == nil && msg["method"] == "initialize" {
				msg["params"].(map[string]any)["protocolVersion"] = version
				body, _ = json.Marshal(msg)
				r.ContentLength = int64(len(body))
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		h.ServeHTTP(w, r)
	})
}

// anyHandler serves with the http.Handler of the moment.
type anyHandler struct{ cur atomic.Pointer[http.Handler] }

func (a *anyHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	(*a.cur.Load()).ServeHTTP(w, r)
}
func (a *anyHandler) set(h http.Handler) { a.cur.Store(&h) }

// After a restart as a newer (older) server, the client speaks the
// revision the new session chose, its accessors return the new server's
// info, capabilities and instructions, OnSessionChanged tells old from new,
// the subscription comes back only where the new server offers it, and a
// tool's retry safety is learnt again: the new "lookup" is no longer
// read-only, so a call of it lost in flight is not tried again. Calls and
// accessors run meanwhile (-race).
func TestClientSessionUpgrade(t *testing.T) {
	for _, tc := range []struct {
		name      string
		version   string // what the new server speaks
		resources bool   // whether it has resources to subscribe to
	}{
		{"revision", mcp.Version20250618, true},
		{"capabilities", mcp.Version20251125, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rpctest.CheckLeaks(t)
			var runs1, runs2 atomic.Int32
			h1 := NewHandler(upgradeServer("1", "old", true, true, &runs1), nil)
			t.Cleanup(func() { h1.Close() })
			var sw anyHandler
			sw.set(h1)
			ts := httptest.NewServer(&sw)
			t.Cleanup(ts.Close)

			changed := make(chan [2]mcpclient.SessionInfo, 4)
			renewed := make(chan error, 4)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			c, err := mcphttpclient.Connect(ctx, ts.URL+"/mcp", &mcphttpclient.Options{Transport: "streamable", MCP: mcpclient.Options{
				ProtocolVersion:  mcp.Version20251125,
				OnSessionChanged: func(old, new mcpclient.SessionInfo) { changed <- [2]mcpclient.SessionInfo{old, new} },
				OnSessionExpired: func(err error) { renewed <- err },
				Retry:            runtime.RetryPolicy{MinDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond},
			}})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if err := c.Subscribe(ctx, featureURI); err != nil {
				t.Fatal(err)
			}
			if _, err := c.ListTools(ctx); err != nil { // lookup: read-only
				t.Fatal(err)
			}
			before := c.Session()

			rs := &retryServer{dropped: map[string]bool{}, drop: map[string]bool{"lookup": true}, refuse: map[string]bool{}}
			h2 := NewHandler(upgradeServer("2", "new", tc.resources, false, &runs2), nil)
			t.Cleanup(func() { h2.Close() })
			sw.set(offering(tc.version, rs.wrap(h2)))
			h1.Close() // the old server forgets its session: 404

			// Callers while the session changes under them.
			var wg sync.WaitGroup
			stop := make(chan struct{})
			for range 2 {
				wg.Go(func() {
					for {
						select {
						case <-stop:
							return
						default:
						}
						_ = c.Ping(ctx)
						_, _, _ = c.ProtocolVersion(), c.ServerInfo(), c.ServerCapabilities()
						_ = c.Instructions()
					}
				})
			}
			got := recv(t, changed, "OnSessionChanged")
			err = recv(t, renewed, "OnSessionExpired")
			close(stop)
			wg.Wait()

			if got[0].ProtocolVersion != before.ProtocolVersion || !reflect.DeepEqual(got[0].ServerInfo, before.ServerInfo) || got[0].Instructions != "old" {
				t.Errorf("old session %+v, want %+v", got[0], before)
			}
			want := mcpclient.SessionInfo{ProtocolVersion: tc.version, ServerInfo: mcp.Implementation{Name: "up", Version: "2"}, Instructions: "new"}
			if n := got[1]; n.ProtocolVersion != want.ProtocolVersion || !reflect.DeepEqual(n.ServerInfo, want.ServerInfo) || n.Instructions != want.Instructions {
				t.Errorf("new session %+v, want %+v", n, want)
			}
			if s := c.Session(); s.ProtocolVersion != tc.version || s.ServerInfo.Version != "2" || s.Instructions != "new" ||
				c.ProtocolVersion() != tc.version || c.Instructions() != "new" || c.ServerInfo().Version != "2" {
				t.Errorf("the client's accessors after the new session: %+v", s)
			}
			hasResources := bytes.Contains(c.ServerCapabilities(), []byte(`"resources"`))
			if hasResources != tc.resources {
				t.Errorf("ServerCapabilities %s: resources %v, want %v", c.ServerCapabilities(), hasResources, tc.resources)
			}
			if tc.resources {
				if err != nil {
					t.Fatalf("OnSessionExpired(%v), want nil", err)
				}
				if _, err := c.ReadResource(ctx, featureURI); err != nil {
					t.Fatalf("a read on the new session (revision %s): %v", tc.version, err)
				}
			} else if err == nil || !strings.Contains(err.Error(), "resources/subscribe "+featureURI) {
				t.Fatalf("OnSessionExpired(%v), want the subscription the new server does not offer", err)
			}

			_, err = c.CallToolRaw(ctx, mcp.CallToolParams{Name: "lookup"})
			if !errors.Is(err, mcpclient.ErrNotIdempotent) {
				t.Errorf("lookup lost in flight on the new server: %v, want ErrNotIdempotent (the old tools/list is stale)", err)
			}
			if n := runs2.Load(); n != 1 {
				t.Errorf("the new lookup ran %d times, want 1", n)
			}
		})
	}
}

// Close while a new session is being started (the restarted server holds
// its initialize) gives the attempt up and waits for it: no goroutine of
// the renewal is left when Close returns. A callback may call Close.
func TestClientCloseDuringRenewal(t *testing.T) {
	t.Run("held", func(t *testing.T) {
		sw, ts := upServer(t)
		held := make(chan struct{}, 8)
		ctx := context.Background()
		c, err := mcphttpclient.Connect(ctx, ts.URL+"/mcp", &mcphttpclient.Options{Transport: "streamable", NoStandaloneStream: true,
			MCP: mcpclient.Options{ProtocolVersion: mcp.Version20251125}})
		if err != nil {
			t.Fatal(err)
		}
		sw.set(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Mcp-Session-Id") != "" {
				http.NotFound(w, r) // the old session is gone
				return
			}
			_, _ = io.Copy(io.Discard, r.Body) // then a closed connection ends r's context
			held <- struct{}{}
			<-r.Context().Done() // initialize never answered
		}))
		if err := c.Ping(runtime.WithoutRetry(ctx)); !errors.Is(err, mcphttpclient.ErrSessionExpired) {
			t.Fatalf("ping: %v, want mcphttpclient.ErrSessionExpired", err)
		}
		recv(t, held, "the new session's initialize")
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
		if stacks := allStacks(); strings.Contains(stacks, "renewLoop") {
			t.Fatalf("a renewal outlived Close:\n%s", stacks)
		}
	})
	t.Run("from-callback", func(t *testing.T) {
		sw, ts := upServer(t)
		closed := make(chan error, 1)
		var c *mcpclient.Client
		var once sync.Once
		ready := make(chan struct{})
		ctx := context.Background()
		c, err := mcphttpclient.Connect(ctx, ts.URL+"/mcp", &mcphttpclient.Options{Transport: "streamable", NoStandaloneStream: true, MCP: mcpclient.Options{
			ProtocolVersion: mcp.Version20251125,
			Retry:           runtime.RetryPolicy{MinDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond},
			OnSessionExpired: func(error) {
				<-ready
				once.Do(func() { closed <- c.Close() })
			},
		}})
		if err != nil {
			t.Fatal(err)
		}
		close(ready)
		sw.set(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Mcp-Session-Id") != "" {
				http.NotFound(w, r)
				return
			}
			http.Error(w, "down", http.StatusServiceUnavailable)
		}))
		_ = c.Ping(runtime.WithoutRetry(ctx))
		if err := recv(t, closed, "Close from OnSessionExpired"); err != nil {
			t.Fatal(err)
		}
	})
}

// upServer serves upgradeServer through an anyHandler, checking for leaks.
func upServer(t *testing.T) (*anyHandler, *httptest.Server) {
	rpctest.CheckLeaks(t)
	var runs atomic.Int32
	h := NewHandler(upgradeServer("1", "", true, true, &runs), nil)
	t.Cleanup(func() { h.Close() })
	sw := new(anyHandler)
	sw.set(h)
	ts := httptest.NewServer(sw)
	t.Cleanup(ts.Close)
	return sw, ts
}

// allStacks returns the stacks of every goroutine.
func allStacks() string {
	buf := make([]byte, 1<<20)
	return string(buf[:goruntime.Stack(buf, true)])
}
