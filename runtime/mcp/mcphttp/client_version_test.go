package mcphttp_test

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/rpcgen/rpcgen/internal/rpctest"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttpclient"
)

// unsupportedVersion is the 400 a 2026-07-28 server answers a version it
// will not serve with.
func unsupportedVersion(w http.ResponseWriter, m clientTestMsg, supported string) {
	clientWriteJSON(w, http.StatusBadRequest, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":`+supported+`,"requested":"`+m.metaVersion()+`"}}}`)
}

// TestClientRetriesRefusedVersion: the first request is refused with -32022
// listing 2026-07-28, the very version it asked for (as a replica behind a
// load balancer that has not caught up may answer); the client retries once
// with a version from the list, on the wire header and _meta alike, and is
// connected.
func TestClientRetriesRefusedVersion(t *testing.T) {
	rpctest.CheckLeaks(t)
	for _, version := range []string{"", mcp.Version20260728} {
		t.Run("ProtocolVersion="+version, func(t *testing.T) {
			var refused atomic.Bool
			f := newClientFake(t, func(w http.ResponseWriter, r *http.Request, m clientTestMsg) {
				switch {
				case r.Method != http.MethodPost:
					clientWriteJSON(w, http.StatusMethodNotAllowed, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Method Not Allowed"}}`)
				case !refused.Swap(true):
					unsupportedVersion(w, m, `["2026-07-28"]`)
				case m.Method == "server/discover":
					clientWriteJSON(w, http.StatusOK, clientResult(m, clientDiscoverResult))
				default:
					clientWriteJSON(w, http.StatusOK, clientResult(m, `{"resultType":"complete","tools":[],"ttlMs":0,"cacheScope":"private"}`))
				}
			})
			ctx := context.Background()
			c := clientConnect(ctx, t, f.URL, &mcphttpclient.Options{MCP: mcpclient.Options{ProtocolVersion: version}})
			if !c.Modern() || c.ProtocolVersion() != mcp.Version20260728 {
				t.Fatalf("connected with %q", c.ProtocolVersion())
			}
			if _, err := c.ListTools(ctx); err != nil {
				t.Fatal(err)
			}
			seen := f.find(http.MethodPost, "")
			var methods []string
			for _, s := range seen {
				methods = append(methods, s.Msg.Method)
				if h, meta := s.Header.Get("Mcp-Protocol-Version"), s.Msg.metaVersion(); h != mcp.Version20260728 || meta != h {
					t.Errorf("%s: MCP-Protocol-Version %q, _meta protocolVersion %q", s.Msg.Method, h, meta)
				}
			}
			if got := strings.Join(methods, " "); got != "server/discover server/discover tools/list" {
				t.Errorf("requests %s, want server/discover twice (refused, retried) then tools/list", got)
			}
		})
	}
}

// TestClientRefusedVersionTwice: a server that refuses the version it
// names again is an error naming the versions, after exactly one retry; a
// dual-era client whose modern versions the server does not list falls
// back to initialize with one it does.
func TestClientRefusedVersionTwice(t *testing.T) {
	rpctest.CheckLeaks(t)
	f := newClientFake(t, func(w http.ResponseWriter, r *http.Request, m clientTestMsg) {
		unsupportedVersion(w, m, `["2026-07-28"]`)
	})
	_, err := mcphttpclient.Connect(context.Background(), f.URL, &mcphttpclient.Options{MCP: mcpclient.Options{ProtocolVersion: mcp.Version20260728}})
	if err == nil || !strings.Contains(err.Error(), "2026-07-28") {
		t.Fatalf("Connect: %v, want an error naming the supported versions", err)
	}
	if n := len(f.find(http.MethodPost, "server/discover")); n != 2 {
		t.Errorf("%d server/discover requests, want 2", n)
	}

	legacy := newClientFake(t, func(w http.ResponseWriter, r *http.Request, m clientTestMsg) {
		switch {
		case r.Method != http.MethodPost:
			clientWriteJSON(w, http.StatusMethodNotAllowed, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Method Not Allowed"}}`)
		case m.Method == "server/discover":
			unsupportedVersion(w, m, `["2025-11-25"]`)
		case m.Method == "initialize":
			clientWriteJSON(w, http.StatusOK, clientResult(m, clientInitResult))
		default:
			w.WriteHeader(http.StatusAccepted)
		}
	})
	c := clientConnect(context.Background(), t, legacy.URL, nil)
	if c.Modern() || c.ProtocolVersion() != mcp.Version20251125 {
		t.Errorf("connected with %q, want the legacy 2025-11-25", c.ProtocolVersion())
	}
}
