package mcpclient_test

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"

	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
)

// capsTransport is a legacy server's transport that reports a session id
// and an endpoint through the exported optional capabilities.
type capsTransport struct{}

var (
	_ mcpclient.SessionIDReporter = capsTransport{}
	_ mcpclient.EndpointReporter  = capsTransport{}
)

func (capsTransport) RoundTrip(_ context.Context, id int64, msg []byte, _ func([]byte)) ([]byte, error) {
	var req struct {
		Method string `json:"method"`
	}
	if err := json.Unmarshal(msg, &req); err != nil {
		return nil, err
	}
	result := `{}`
	if req.Method == "initialize" {
		result = `{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"caps","version":"1"}}`
	}
	return []byte(`{"jsonrpc":"2.0","id":` + strconv.FormatInt(id, 10) + `,"result":` + result + `}`), nil
}

func (capsTransport) Send(context.Context, []byte) error { return nil }
func (capsTransport) Close() error                       { return nil }
func (capsTransport) SessionID() string                  { return "sess-1" }
func (capsTransport) Endpoint() mcpclient.Endpoint {
	return mcpclient.Endpoint{Transport: "tcp", Address: "example.test", Port: 8443, Protocol: "http"}
}

// TestTransportCapabilities checks that what a Transport says through
// SessionIDReporter and EndpointReporter reaches the client's middleware
// (Request.SessionID, Request.Server) and Client.Endpoint.
func TestTransportCapabilities(t *testing.T) {
	want := capsTransport{}.Endpoint()
	var gotID string
	var gotServer mcpclient.Endpoint
	mw := func(next mcpclient.Handler) mcpclient.Handler {
		return func(ctx context.Context, req *mcpclient.Request) (json.RawMessage, error) {
			if req.Method == mcp.MethodPing {
				gotID, gotServer = req.SessionID, req.Server
			}
			return next(ctx, req)
		}
	}
	c, err := mcpclient.ConnectTransport(context.Background(), capsTransport{}, mcpclient.Options{
		ProtocolVersion: mcp.Version20251125,
		Middleware:      []mcpclient.Middleware{mw},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Ping(context.Background()); err != nil {
		t.Fatal(err)
	}
	if gotID != "sess-1" {
		t.Errorf("Request.SessionID = %q, want sess-1", gotID)
	}
	if gotServer != want {
		t.Errorf("Request.Server = %+v, want %+v", gotServer, want)
	}
	if e := c.Endpoint(); e != want {
		t.Errorf("Client.Endpoint() = %+v, want %+v", e, want)
	}
}
