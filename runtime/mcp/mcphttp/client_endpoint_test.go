package mcphttp

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/internal/rpctest"
	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttpclient"
)

// Over Streamable HTTP a client's requests name the server's host and port
// over TCP and HTTP; the session a successful initialize started ends with
// mcphttpclient.ErrSessionExpired when the server ends it, the renewal's initialize
// starts the next, which ends with nil on Close.
func TestClientEndpointAndSessionEnd(t *testing.T) {
	rpctest.CheckLeaks(t)
	h := NewHandler(newFeatureServer(), nil)
	t.Cleanup(func() { h.Close() })
	fi := &failInitialized{next: h} // records the GET's session id
	ts := httptest.NewServer(fi)
	t.Cleanup(ts.Close)
	u, _ := url.Parse(ts.URL)
	port, _ := strconv.Atoi(u.Port())
	want := mcpclient.Endpoint{Transport: runtime.TransportTCP, Address: "127.0.0.1", Port: port, Protocol: "http"}

	ends := make(chan error, 4)
	var mu sync.Mutex
	var servers []mcpclient.Endpoint
	watch := func(next mcpclient.Handler) mcpclient.Handler {
		return func(ctx context.Context, req *mcpclient.Request) (json.RawMessage, error) {
			mu.Lock()
			servers = append(servers, req.Server)
			mu.Unlock()
			res, err := next(ctx, req)
			if err == nil {
				req.OnSessionEnd(func(err error) { ends <- err })
			}
			return res, err
		}
	}
	renewed := make(chan error, 4)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := mcphttpclient.Connect(ctx, ts.URL+"/mcp", &mcphttpclient.Options{Transport: "streamable", MCP: mcpclient.Options{
		ProtocolVersion: mcp.Version20251125, Middleware: []mcpclient.Middleware{watch},
		OnSessionExpired: func(err error) { renewed <- err },
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if got := c.Endpoint(); got != want {
		t.Errorf("Endpoint() = %+v, want %+v", got, want)
	}
	if err := c.Ping(ctx); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	for _, s := range servers {
		if s != want {
			t.Errorf("a request's Server = %+v, want %+v", s, want)
		}
	}
	mu.Unlock()
	// The server ends the session.
	var sid string
	for sid == "" {
		if sid = fi.lastGET(); sid == "" {
			if err := c.Ping(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
	req, _ := http.NewRequest(http.MethodDelete, ts.URL+"/mcp", nil)
	req.Header.Set("Mcp-Session-Id", sid)
	req.Header.Set("Mcp-Protocol-Version", mcp.Version20251125)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if err := recv(t, ends, "the end of the first session"); !errors.Is(err, mcpclient.ErrSessionExpired) {
		t.Errorf("the first session ended with %v, want mcphttpclient.ErrSessionExpired", err)
	}
	if err := recv(t, renewed, "the renewal"); err != nil {
		t.Fatalf("renewal: %v", err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := recv(t, ends, "the end of the second session"); err != nil {
		t.Errorf("the second session ended with %v on Close, want nil", err)
	}
	select {
	case err := <-ends:
		t.Errorf("a third session end (%v)", err)
	default:
	}
}
