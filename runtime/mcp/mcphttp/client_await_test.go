package mcphttp

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rpcgen/rpcgen/internal/rpctest"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttpclient"
)

// TestClientCallAwaitsStandaloneStream: a server that sends a message of no
// request (here a log message a tool makes without naming its call) only
// on the standalone GET stream drops it while no stream is open. The first
// call after mcphttpclient.Connect therefore waits until the GET has been answered; it
// used to race it (the conformance suite's elicitation-sep1034 client
// scenario lost its elicitation once in eight runs under load).
func TestClientCallAwaitsStandaloneStream(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		gate := make(chan struct{})
		getArrived := make(chan struct{})
		var streamOpen atomic.Bool
		var calledEarly atomic.Bool
		stream := make(chan []byte, 1)
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodGet {
				close(getArrived)
				<-gate
				// Open before the headers go out, as a real server
				// registers its stream before answering: once the client
				// has the headers, what the server says is delivered.
				streamOpen.Store(true)
				w.Header().Set("Content-Type", "text/event-stream")
				w.WriteHeader(http.StatusOK)
				w.(http.Flusher).Flush()
				select {
				case msg := <-stream:
					_, _ = io.WriteString(w, "id: 1\ndata: "+string(msg)+"\n\n")
					w.(http.Flusher).Flush()
				case <-r.Context().Done():
				}
				<-r.Context().Done()
				return
			}
			var req struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
			}
			body, _ := io.ReadAll(r.Body)
			_ = json.Unmarshal(body, &req)
			w.Header().Set("Content-Type", "application/json")
			switch req.Method {
			case "initialize":
				w.Header().Set("Mcp-Session-Id", "s1")
				_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{},"logging":{}},"serverInfo":{"name":"t","version":"1"}}}`)
			case "tools/call":
				if !streamOpen.Load() {
					calledEarly.Store(true) // what the server says now is lost
				} else {
					stream <- []byte(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"on the stream"}}`)
				}
				_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,"result":{"content":[]}}`)
			default:
				if req.ID == nil {
					w.WriteHeader(http.StatusAccepted)
					return
				}
				_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,"result":{}}`)
			}
		})
		ts := rpctest.NewPipeServer(t, h, nil)
		logs := make(chan mcp.LogMessage, 1)
		ctx := context.Background()
		c, err := mcphttpclient.Connect(ctx, ts.URL+"/mcp", &mcphttpclient.Options{Transport: "streamable", HTTPClient: ts.Client(), MCP: mcpclient.Options{
			ProtocolVersion: mcp.Version20251125,
			OnLog:           func(m mcp.LogMessage) { logs <- m },
		}})
		if err != nil {
			t.Fatal(err)
		}
		release := sync.OnceFunc(func() { close(gate) })
		defer func() { // everything in the bubble ends, whatever failed
			release()
			c.Close()
			ts.CloseClientConnections()
			ts.Close()
		}()
		// Every wait is bounded in the bubble's fake time: a client that
		// never sends its GET, never answers or never delivers fails this
		// test instead of deadlocking the bubble, which would panic and
		// abort every other test of the package.
		select {
		case <-getArrived:
		case <-time.After(time.Minute):
			t.Fatal("the client opened no standalone GET stream")
		}
		done := make(chan error, 1)
		go func() {
			done <- c.CallTool(ctx, "say", nil, nil)
		}()
		synctest.Wait() // every goroutine blocked: the call waits, or has been answered
		if calledEarly.Load() {
			t.Fatal("the call reached the server before its standalone stream was open")
		}
		release()
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(time.Minute):
			t.Fatal("the call got no answer")
		}
		select {
		case m := <-logs:
			if string(m.Data) != `"on the stream"` {
				t.Errorf("log message %s, want the one sent on the stream", m.Data)
			}
		case <-time.After(time.Minute):
			t.Fatal("the log message sent on the stream never arrived")
		}
	})
}
