package mcphttp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/rpcgen/rpcgen/internal/rpctest"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
	"github.com/rpcgen/rpcgen/runtime/sse"
)

// callServer serves tools steered by the tests of this file: on HTTP/1.1
// (where legacy calls run on the POST's goroutine) or on HTTP/2 over TLS
// (where they run on a goroutine of their own).
type callServer struct {
	t       *testing.T
	h       *Handler
	ts      *httptest.Server
	url     string
	client  *http.Client
	started chan string   // a tool is waiting for gate (its name)
	gate    chan struct{} // lets a waiting tool go on, once per send
	closed  chan bool     // what mcpserver.CloseStream returned
}

func newCallServer(t *testing.T, opts *Options, http2 bool) *callServer {
	t.Helper()
	cs := &callServer{
		t:       t,
		started: make(chan string, 10),
		gate:    make(chan struct{}, 10),
		closed:  make(chan bool, 10),
	}
	obj := json.RawMessage(`{"type":"object"}`)
	// wait blocks until the test opens the gate; a stubborn wait ignores
	// the call's cancellation.
	wait := func(ctx context.Context, name string, stubborn bool) error {
		cs.started <- name
		if stubborn {
			<-cs.gate
			return nil
		}
		select {
		case <-cs.gate:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	srv := mcpserver.New(mcp.Implementation{Name: "call", Version: "1"}, nil)
	srv.AddTools(
		// poll logs "before", closes its stream, waits, logs "after".
		mcpserver.Tool{Name: "poll", InputSchema: obj, Handler: func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
			mcpserver.Log(ctx, mcp.LevelInfo, "", "before")
			cs.closed <- mcpserver.CloseStream(ctx)
			if err := wait(ctx, "poll", false); err != nil {
				return nil, err
			}
			mcpserver.Log(ctx, mcp.LevelInfo, "", "after")
			return json.RawMessage(`{"polled":true}`), nil
		}},
		// steps logs 0, 1, 2, waiting before each.
		mcpserver.Tool{Name: "steps", InputSchema: obj, Handler: func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
			for i := range 3 {
				if err := wait(ctx, "steps", false); err != nil {
					return nil, err
				}
				mcpserver.Log(ctx, mcp.LevelInfo, "", i)
			}
			return json.RawMessage(`{"steps":3}`), nil
		}},
		// stubborn logs, then waits, whatever becomes of its context.
		mcpserver.Tool{Name: "stubborn", InputSchema: obj, Handler: func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
			mcpserver.Log(ctx, mcp.LevelInfo, "", "started")
			wait(ctx, "stubborn", true)
			return json.RawMessage(`{"stubborn":true}`), nil
		}},
		mcpserver.Tool{Name: "slow", InputSchema: obj, Handler: func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
			if err := wait(ctx, "slow", false); err != nil {
				return nil, err
			}
			return json.RawMessage(`{"slow":true}`), nil
		}},
	)
	h := NewHandler(srv, opts)
	cs.h = h
	if http2 {
		cs.ts = httptest.NewUnstartedServer(h)
		cs.ts.EnableHTTP2 = true
		cs.ts.StartTLS()
		cs.client = cs.ts.Client()
	} else {
		cs.ts = httptest.NewServer(h)
		cs.client = &http.Client{Transport: &http.Transport{}}
	}
	cs.url = cs.ts.URL + "/mcp"
	t.Cleanup(func() {
		h.Close()
		cs.client.CloseIdleConnections()
		cs.ts.Close()
	})
	return cs
}

// do sends a request; kv are header names and values. The body of the
// response is the caller's to read and close.
func (cs *callServer) do(method, body string, kv ...string) *http.Response {
	cs.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, cs.url, rd)
	if err != nil {
		cs.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for i := 0; i+1 < len(kv); i += 2 {
		req.Header.Set(kv[i], kv[i+1])
	}
	resp, err := cs.client.Do(req)
	if err != nil {
		cs.t.Fatalf("%s: %v", method, err)
	}
	cs.t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// initialize starts a 2025-11-25 session and returns its id.
func (cs *callServer) initialize() string {
	cs.t.Helper()
	resp := cs.do(http.MethodPost, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
	io.Copy(io.Discard, resp.Body)
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || sid == "" {
		cs.t.Fatalf("initialize: %d, session %q", resp.StatusCode, sid)
	}
	resp = cs.do(http.MethodPost, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, "Mcp-Session-Id", sid)
	io.Copy(io.Discard, resp.Body)
	return sid
}

// call POSTs a tools/call of the tool name in session sid.
func (cs *callServer) call(sid, name string) *http.Response {
	cs.t.Helper()
	return cs.do(http.MethodPost, toolCallBody(name), "Mcp-Session-Id", sid)
}

func toolCallBody(name string) string {
	return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + name + `","arguments":{}}}`
}

// readAllEvents reads the events of a stream; the stream must end cleanly.
func readAllEvents(t *testing.T, r io.Reader) []sse.Event {
	t.Helper()
	rd := sse.NewReader(r)
	var out []sse.Event
	for {
		e, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("read the stream: %v (after %+v)", err, out)
		}
		out = append(out, e)
	}
}

// nextEvent reads one event of a stream.
func nextEvent(t *testing.T, rd *sse.Reader) sse.Event {
	t.Helper()
	e, err := rd.Next()
	if err != nil {
		t.Fatalf("read an event: %v", err)
	}
	return e
}

// wantData checks that the events' data contain want, one each, in order.
func wantData(t *testing.T, evs []sse.Event, want ...string) {
	t.Helper()
	if len(evs) != len(want) {
		t.Fatalf("%d events, want %d: %+v", len(evs), len(want), evs)
	}
	for i, w := range want {
		if !strings.Contains(evs[i].Data, w) {
			t.Fatalf("event %d is %q, want one with %q", i, evs[i].Data, w)
		}
	}
}

// mcpserver.CloseStream ends the POST's response cleanly while the call goes on,
// on HTTP/1.1 (the connection is taken over and the chunked body ended) and
// on HTTP/2; the client resumes the stream with GET and Last-Event-ID, on
// the same client, and receives the rest live.
func TestCloseStreamEndsResponse(t *testing.T) {
	for _, h2 := range []bool{false, true} {
		name := "HTTP/1.1"
		if h2 {
			name = "HTTP/2"
		}
		t.Run(name, func(t *testing.T) {
			rpctest.CheckLeaks(t)
			cs := newCallServer(t, nil, h2)
			sid := cs.initialize()
			resp := cs.call(sid, "poll")
			if resp.ProtoMajor != map[bool]int{false: 1, true: 2}[h2] {
				t.Fatalf("served over %s", resp.Proto)
			}
			done := make(chan []sse.Event, 1)
			go func() { done <- readAllEvents(t, resp.Body) }()
			before := recv(t, done, "the end of the POST's response")
			if !recv(t, cs.closed, "CloseStream") {
				t.Fatal("CloseStream returned false")
			}
			wantData(t, before, "", "before")
			recv(t, cs.started, "the call waits")
			get := cs.do(http.MethodGet, "", "Mcp-Session-Id", sid, "Last-Event-ID", before[1].ID)
			if get.StatusCode != http.StatusOK {
				t.Fatalf("resume: %d", get.StatusCode)
			}
			cs.gate <- struct{}{}
			wantData(t, readAllEvents(t, get.Body), "after", `"polled":true`)
		})
	}
}

// On the wire (HTTP/1.1), the POST's response ends with the last chunk and
// the server closes the connection; an HTTP/1.0 response (not chunked) ends
// with the connection.
func TestCloseStreamWire(t *testing.T) {
	for _, proto := range []string{"HTTP/1.1", "HTTP/1.0"} {
		t.Run(proto, func(t *testing.T) {
			rpctest.CheckLeaks(t)
			cs := newCallServer(t, nil, false)
			sid := cs.initialize()
			nc, err := net.Dial("tcp", cs.ts.Listener.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer nc.Close()
			body := toolCallBody("poll")
			_, err = io.WriteString(nc, "POST /mcp "+proto+"\r\nHost: "+cs.ts.Listener.Addr().String()+
				"\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMcp-Session-Id: "+sid+
				"\r\nContent-Length: "+strconv.Itoa(len(body))+"\r\n\r\n"+body)
			if err != nil {
				t.Fatal(err)
			}
			var wire bytes.Buffer
			br := bufio.NewReader(io.TeeReader(nc, &wire))
			nc.SetReadDeadline(time.Now().Add(10 * time.Second))
			resp, err := http.ReadResponse(br, nil)
			if err != nil {
				t.Fatal(err)
			}
			chunked := len(resp.TransferEncoding) > 0 && resp.TransferEncoding[0] == "chunked"
			if resp.StatusCode != http.StatusOK || chunked != (proto == "HTTP/1.1") {
				t.Fatalf("status %d, transfer encoding %v", resp.StatusCode, resp.TransferEncoding)
			}
			wantData(t, readAllEvents(t, resp.Body), "", "before")
			if !recv(t, cs.closed, "CloseStream") {
				t.Fatal("CloseStream returned false")
			}
			if chunked && !bytes.HasSuffix(wire.Bytes(), []byte("\r\n0\r\n\r\n")) {
				t.Fatalf("the response does not end with the last chunk: %q", wire.Bytes())
			}
			if n, err := br.Read(make([]byte, 1)); n != 0 || !errors.Is(err, io.EOF) {
				t.Fatalf("after the response: %d bytes, %v; want the connection closed", n, err)
			}
			recv(t, cs.started, "the call waits")
			cs.gate <- struct{}{}
		})
	}
}

type ccKey struct{}

// A call's context has its POST's values, and ends with its session's life,
// not with its POST; a context under it (the runtime's, for
// notifications/cancelled) ends with that life too, and Cause sees it.
func TestCallContext(t *testing.T) {
	post, endPost := context.WithCancel(context.WithValue(context.Background(), ccKey{}, "v"))
	life, endLife := context.WithCancel(context.Background())
	cc := &callContext{Context: life, vals: post}
	if cc.Value(ccKey{}) != "v" {
		t.Fatalf("value %v", cc.Value(ccKey{}))
	}
	child, endChild := context.WithCancel(cc)
	defer endChild()
	endPost()
	if cc.Err() != nil || child.Err() != nil {
		t.Fatal("the call's context ended with its POST")
	}
	endLife()
	<-child.Done()
	if context.Cause(child) != context.Canceled || cc.Err() != context.Canceled {
		t.Fatalf("cause %v, err %v", context.Cause(child), cc.Err())
	}
}

// TestCallSizeClass: a call, allocated per POST, fits in the 352-byte size
// class (the next, 384, costs 32 bytes a call).
func TestCallSizeClass(t *testing.T) {
	if n := unsafe.Sizeof(call{}); n > 352 {
		t.Fatalf("a call is %d bytes, want at most 352", n)
	}
}
