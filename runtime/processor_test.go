package runtime_test

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/internal/rpctest"
	"github.com/rpcgen/rpcgen/runtime"
)

// procHandler answers "echo" with its params and makes "block" wait for its
// context, then report to cancelled (when not nil) and return
// runtime.ErrNoResponse.
func procHandler(started, cancelled chan<- struct{}) runtime.Handler {
	return runtime.HandlerFunc(func(ctx context.Context, req *runtime.Request) (json.RawMessage, error) {
		switch req.Method {
		case "echo":
			return req.Params, nil
		case "block":
			started <- struct{}{}
			select {
			case <-ctx.Done():
				if cancelled != nil {
					cancelled <- struct{}{}
				}
				return nil, runtime.ErrNoResponse
			case <-time.After(5 * time.Second):
				return json.RawMessage(`"not cancelled"`), nil
			}
		case "silent":
			return nil, runtime.ErrNoResponse
		}
		return nil, runtime.ErrMethodNotFound(req.Method)
	})
}

func TestProcessor(t *testing.T) {
	started := make(chan struct{}, 1)
	var batches atomic.Bool
	p := runtime.NewProcessor(runtime.Options{
		Handler:      procHandler(started, nil),
		CancelMethod: "notifications/cancelled",
		CancelIDKey:  "requestId",
		AllowBatch:   batches.Load,
	})
	ctx := context.Background()
	for _, tc := range []struct{ in, want string }{
		{`{"jsonrpc":"2.0","id":1,"method":"echo","params":{"a":1}}`, `{"jsonrpc":"2.0","id":1,"result":{"a":1}}`},
		{`{"jsonrpc":"2.0","id":2,"method":"silent"}`, ``},
		{`{"jsonrpc":"2.0","id":3,"result":{}}`, ``}, // a stray response is dropped
		{`[{"jsonrpc":"2.0","id":4,"method":"echo","params":[]}]`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request","data":"batches are not supported"}}`},
		{`{"jsonrpc"`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`},
	} {
		if got := string(p.Process(ctx, []byte(tc.in), nil)); got != tc.want {
			t.Errorf("%s\n got %s\nwant %s", tc.in, got, tc.want)
		}
	}
	batches.Store(true)
	in := `[{"jsonrpc":"2.0","id":5,"method":"echo","params":[]},{"jsonrpc":"2.0","id":6,"method":"silent"}]`
	if got, want := string(p.Process(ctx, []byte(in), nil)), `[{"jsonrpc":"2.0","id":5,"result":[]}]`; got != want {
		t.Errorf("batch: got %s, want %s", got, want)
	}

	// A cancellation processed while a request runs cancels it.
	reply := make(chan []byte, 1)
	go func() { reply <- p.Process(ctx, []byte(`{"jsonrpc":"2.0","id":"b","method":"block"}`), nil) }()
	<-started
	if got := p.Process(ctx, []byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"b"}}`), nil); len(got) != 0 {
		t.Errorf("cancellation answered: %s", got)
	}
	select {
	case got := <-reply:
		if len(got) != 0 {
			t.Errorf("cancelled request answered: %s", got)
		}
	case <-time.After(3 * time.Second):
		t.Fatal("the cancellation did not reach the request")
	}
}

// JSON-RPC 2.0 allows a null or fractional id and the plain dispatcher answers
// it; StrictIDs (MCP's rule) refuses it with id null, over a Processor and a
// Conn alike.
func TestStrictIDs(t *testing.T) {
	ctx := context.Background()
	refused := `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}}`
	for _, tc := range []struct {
		id     string
		strict bool // refused under StrictIDs
	}{
		{`null`, true}, {`1.5`, true}, {`1e2`, true}, {`-12`, false}, {`"a.e"`, false},
	} {
		in := `{"jsonrpc":"2.0","id":` + tc.id + `,"method":"echo","params":[1]}`
		for _, strictIDs := range []bool{false, true} {
			want := `{"jsonrpc":"2.0","id":` + tc.id + `,"result":[1]}`
			if strictIDs && tc.strict {
				want = refused
			}
			p := runtime.NewProcessor(runtime.Options{Handler: procHandler(nil, nil), StrictIDs: strictIDs})
			if got := string(p.Process(ctx, []byte(in), nil)); got != want {
				t.Errorf("Processor, StrictIDs %v: %s\n got %s\nwant %s", strictIDs, in, got, want)
			}
			client, server := runtime.Pipe()
			c := runtime.NewConn(server, runtime.Options{Handler: procHandler(nil, nil), StrictIDs: strictIDs})
			if err := client.WriteMessage([]byte(in)); err != nil {
				t.Fatal(err)
			}
			got, err := client.ReadMessage()
			if err != nil || string(got) != want {
				t.Errorf("Conn, StrictIDs %v: %s\n got %s (%v)\nwant %s", strictIDs, in, got, err, want)
			}
			c.Close()
		}
	}
}

// A Conn sends and honours cancellations under CancelIDKey.
func TestConnCancelIDKey(t *testing.T) {
	rpctest.CheckLeaks(t)
	started, cancelled := make(chan struct{}, 1), make(chan struct{}, 1)
	opts := runtime.Options{CancelMethod: "notifications/cancelled", CancelIDKey: "requestId"}
	srvOpts := opts
	srvOpts.Handler = procHandler(started, cancelled)
	client, _ := connPair(t, opts, srvOpts)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- client.Call(ctx, "block", nil, nil) }()
	<-started
	cancel()
	if err := <-errc; err != context.Canceled {
		t.Errorf("Call: %v", err)
	}
	select {
	case <-cancelled:
	case <-time.After(3 * time.Second):
		t.Fatal(`the server did not honour {"requestId": id}`)
	}
	// The connection still works.
	var got json.RawMessage
	if err := client.Call(context.Background(), "echo", json.RawMessage(`{"x":1}`), &got); err != nil || string(got) != `{"x":1}` {
		t.Errorf("echo after cancel: %s %v", got, err)
	}
}

func TestObjectScanner(t *testing.T) {
	sc, ok := runtime.ScanObject([]byte(` {"a":1, "b\u0063":"x","d":{"e":[1,2]}} `))
	if !ok {
		t.Fatal("not an object")
	}
	var got []string
	for {
		k, v, ok := sc.Next()
		if !ok {
			break
		}
		got = append(got, string(k)+"="+string(v))
	}
	if want := `a=1 bc="x" d={"e":[1,2]}`; join(got) != want || sc.Malformed() {
		t.Errorf("got %q (malformed %v), want %q", join(got), sc.Malformed(), want)
	}
	if _, ok := runtime.ScanObject([]byte(`[1]`)); ok {
		t.Error("an array scanned as an object")
	}
}

func join(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += " "
		}
		out += x
	}
	return out
}
