package mcphttp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/internal/rpctest"
	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttpclient"
)

// clientSSEFake is a 2024-11-05 HTTP+SSE server: GET / opens the stream,
// whose endpoint event names /messages?sessionId=…; POSTs there get 202 and
// their answers go on the stream. A POST to / gets a bare 405.
type clientSSEFake struct {
	*clientFake
	endpoint func(base string) string // the endpoint event's data
	out      chan string              // messages for the stream
	ended    chan struct{}            // closed when the GET handler returns
	posted   chan clientTestMsg
	once     sync.Once
	tool     func(f *clientSSEFake, m clientTestMsg)      // answers tools/call by writing to out
	root     func(w http.ResponseWriter, m clientTestMsg) // answers POST /; a bare 405 when nil
}

// clientSSEEndpoint is the usual endpoint.
func clientSSEEndpoint(string) string { return "/messages?sessionId=abc" }

func newClientSSEFake(t *testing.T, endpoint func(base string) string, tool func(f *clientSSEFake, m clientTestMsg)) *clientSSEFake {
	f := &clientSSEFake{endpoint: endpoint, tool: tool, out: make(chan string, 64), ended: make(chan struct{}), posted: make(chan clientTestMsg, 64)}
	f.clientFake = newClientFake(t, func(w http.ResponseWriter, r *http.Request, m clientTestMsg) {
		switch {
		case r.Method == http.MethodGet && r.URL.Path == "/":
			defer f.once.Do(func() { close(f.ended) })
			ev := clientEvents(w)
			ev("", "", "endpoint", f.endpoint("http://"+r.Host))
			for {
				select {
				case msg := <-f.out:
					ev("", "", "message", msg)
				case <-r.Context().Done():
					return
				}
			}
		case r.Method == http.MethodPost && r.URL.Path == "/messages":
			if r.URL.Query().Get("sessionId") != "abc" {
				http.Error(w, "unknown session", http.StatusNotFound)
				return
			}
			w.WriteHeader(http.StatusAccepted)
			f.posted <- m
			switch m.Method {
			case "initialize":
				f.out <- clientResult(m, `{"protocolVersion":"2024-11-05","capabilities":{"tools":{}},"serverInfo":{"name":"fake-sse","version":"1"}}`)
			case "tools/call":
				f.tool(f, m)
			case "ping":
				f.out <- clientResult(m, `{}`)
			}
		case f.root != nil:
			f.root(w, m)
		default:
			http.Error(w, "not here", http.StatusMethodNotAllowed)
		}
	})
	return f
}

// waitPosted returns the next POSTed message that satisfies ok.
func (f *clientSSEFake) waitPosted(t *testing.T, ok func(clientTestMsg) bool) clientTestMsg {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case m := <-f.posted:
			if ok(m) {
				return m
			}
		case <-timeout:
			t.Fatal("the expected POST never came")
		}
	}
}

func TestClientSSEFallback(t *testing.T) {
	rpctest.CheckLeaks(t)
	f := newClientSSEFake(t, clientSSEEndpoint, func(f *clientSSEFake, m clientTestMsg) {
		tok := clientProgressTokenOf(m)
		f.out <- clientProgress(tok, 1)
		f.out <- `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"log"}}`
		f.out <- clientProgress(json.RawMessage(`12345`), 9) // another call's: dropped
		f.out <- clientProgress(tok, 2)
		f.out <- clientResult(m, clientToolResult)
	})
	var logs []string
	ctx := context.Background()
	c, err := mcphttpclient.Connect(ctx, f.URL, &mcphttpclient.Options{
		Header: http.Header{"X-Test": {"yes"}},
		MCP:    mcpclient.Options{OnLog: func(l mcp.LogMessage) { logs = append(logs, string(l.Data)) }},
	})
	if err != nil {
		t.Fatal(err)
	}
	if c.ProtocolVersion() != mcp.Version20241105 || c.ServerInfo().Name != "fake-sse" {
		t.Errorf("connected with %s to %v", c.ProtocolVersion(), c.ServerInfo())
	}
	var got []float64
	res, err := c.CallToolRaw(ctx, mcp.CallToolParams{Name: "progress", OnProgress: func(p mcp.ProgressNotification) {
		got = append(got, p.Progress)
	}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, []float64{1, 2}) || string(res.StructuredContent) != `{"sum":3}` || !slices.Equal(logs, []string{`"log"`}) {
		t.Errorf("progress %v, logs %v, result %s", got, logs, res.StructuredContent)
	}
	if err := c.Close(); err != nil {
		t.Error(err)
	}
	select {
	case <-f.ended:
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not end the GET stream")
	}
	for _, s := range f.requests() {
		if s.Header.Get("X-Test") != "yes" {
			t.Errorf("%s %s lacks the configured header", s.Method, s.Path)
		}
		if s.Method == http.MethodPost && s.Path != "/" && s.Header.Get("Content-Type") != "application/json" {
			t.Errorf("POST Content-Type %q", s.Header.Get("Content-Type"))
		}
	}
	if gets := f.find(http.MethodGet, ""); len(gets) != 1 || gets[0].Header.Get("Accept") != "text/event-stream" {
		t.Errorf("GETs: %v", gets)
	}
}

// TestClientFallbackDecision: mcphttpclient.Connect tries HTTP+SSE after initialize got
// 400, 404 or 405 without an error only a modern server sends, and not
// otherwise.
func TestClientFallbackDecision(t *testing.T) {
	cases := []struct {
		status int
		body   string
		sse    bool
	}{
		{http.StatusNotFound, "", true},
		{http.StatusBadRequest, `{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Bad Request"}}`, true},
		{http.StatusMethodNotAllowed, `{"jsonrpc":"2.0","id":null,"error":{"code":-32601,"message":"no"}}`, true},
		{http.StatusBadRequest, `{"jsonrpc":"2.0","id":null,"error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2099-01-01"]}}}`, false},
		{http.StatusNotFound, `{"jsonrpc":"2.0","id":null,"error":{"code":-32601,"message":"Method not found"}}`, false},
		{http.StatusUnauthorized, "", false},
		{http.StatusInternalServerError, "", false},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprint(tc.status, tc.sse), func(t *testing.T) {
			rpctest.CheckLeaks(t)
			f := newClientSSEFake(t, clientSSEEndpoint, nil)
			f.root = func(w http.ResponseWriter, m clientTestMsg) {
				if tc.body == "" {
					http.Error(w, "no", tc.status)
					return
				}
				clientWriteJSON(w, tc.status, tc.body)
			}
			c, err := mcphttpclient.Connect(context.Background(), f.URL, nil)
			if c != nil {
				c.Close()
			}
			if (err == nil) != tc.sse || (len(f.find(http.MethodGet, "")) > 0) != tc.sse {
				t.Errorf("err = %v; GETs %d", err, len(f.find(http.MethodGet, "")))
			}
		})
	}
}

func TestClientSSECancel(t *testing.T) {
	rpctest.CheckLeaks(t)
	f := newClientSSEFake(t, clientSSEEndpoint, func(f *clientSSEFake, m clientTestMsg) {
		f.out <- clientProgress(clientProgressTokenOf(m), 1)
	})
	c := clientConnect(context.Background(), t, f.URL, &mcphttpclient.Options{Transport: "sse"})
	cancelOnProgress(t, c)
	calls := f.find(http.MethodPost, "tools/call")
	m := f.waitPosted(t, func(m clientTestMsg) bool { return m.Method == "notifications/cancelled" })
	if len(calls) != 1 || string(m.Params["requestId"]) != string(calls[0].Msg.ID) {
		t.Errorf("cancelled %s, call %v", m.Raw, calls)
	}
	if n := len(f.find(http.MethodPost, "server/discover")); n != 0 {
		t.Errorf("probed an HTTP+SSE server with server/discover")
	}
}

// TestClientSSEServerPing: a server request with no call waiting is
// answered by the transport.
func TestClientSSEServerPing(t *testing.T) {
	rpctest.CheckLeaks(t)
	f := newClientSSEFake(t, clientSSEEndpoint, nil)
	clientConnect(context.Background(), t, f.URL, &mcphttpclient.Options{Transport: "sse"})
	f.out <- `{"jsonrpc":"2.0","id":"srv-1","method":"ping"}`
	m := f.waitPosted(t, func(m clientTestMsg) bool { return string(m.ID) == `"srv-1"` })
	if string(m.Raw) != `{"jsonrpc":"2.0","id":"srv-1","result":{}}` {
		t.Errorf("answer %s", m.Raw)
	}
}

func TestClientSSEEndpoint(t *testing.T) {
	rpctest.CheckLeaks(t)
	cases := []struct {
		endpoint func(base string) string
		ok       bool
	}{
		{func(base string) string { return "/messages?sessionId=abc" }, true},
		{func(base string) string { return "messages?sessionId=abc" }, true},
		{func(base string) string { return base + "/messages?sessionId=abc" }, true},
		{func(base string) string { return "http://evil.example/messages?sessionId=abc" }, false},
		{func(base string) string {
			return "https" + strings.TrimPrefix(base, "http") + "/messages?sessionId=abc"
		}, false},
		{func(base string) string { return "//evil.example/messages" }, false},
	}
	for i, tc := range cases {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			f := newClientSSEFake(t, tc.endpoint, nil)
			tr, err := mcphttpclient.DialSSE(context.Background(), f.URL, nil)
			if !tc.ok {
				if err == nil || !strings.Contains(err.Error(), "origin") {
					t.Errorf("endpoint %q: err = %v", tc.endpoint(f.URL), err)
					if tr != nil {
						tr.Close()
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("endpoint %q: %v", tc.endpoint(f.URL), err)
			}
			defer tr.Close()
			reply, err := tr.RoundTrip(context.Background(), 3, []byte(`{"jsonrpc":"2.0","id":3,"method":"ping"}`), nil)
			if err != nil || string(reply) != `{"jsonrpc":"2.0","id":3,"result":{}}` {
				t.Errorf("ping: %s, %v", reply, err)
			}
		})
	}
}

// TestClientSSEStreamEnds: calls waiting when the stream ends fail, and so
// does everything after; Close then still works.
func TestClientSSEStreamEnds(t *testing.T) {
	rpctest.CheckLeaks(t)
	stop := make(chan struct{})
	var once sync.Once
	f := newClientFake(t, func(w http.ResponseWriter, r *http.Request, m clientTestMsg) {
		if r.Method == http.MethodGet {
			clientEvents(w)("", "", "endpoint", "/messages")
			<-stop
			return
		}
		w.WriteHeader(http.StatusAccepted)
		once.Do(func() { close(stop) }) // the first POST ends the stream
	})
	tr, err := mcphttpclient.DialSSE(context.Background(), f.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = tr.RoundTrip(context.Background(), 1, []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`), nil)
	if err == nil || errors.Is(err, runtime.ErrClosed) {
		t.Errorf("err = %v, want the stream's end", err)
	}
	if _, err := tr.RoundTrip(context.Background(), 2, []byte(`{"jsonrpc":"2.0","id":2,"method":"ping"}`), nil); err == nil {
		t.Error("a call after the stream ended did not fail")
	}
	if err := tr.Close(); err != nil {
		t.Error(err)
	}
	if _, err := tr.RoundTrip(context.Background(), 3, []byte(`{"jsonrpc":"2.0","id":3,"method":"ping"}`), nil); !errors.Is(err, runtime.ErrClosed) {
		t.Errorf("after Close: %v", err)
	}
}
