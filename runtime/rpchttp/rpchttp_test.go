package rpchttp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/internal/jsonrpcspec"
	"github.com/rpcgen/rpcgen/internal/rpctest"
	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/rpchttp"
)

func newServer(t *testing.T, h runtime.Handler, opts rpchttp.Options) (*httptest.Server, *rpchttp.Client) {
	t.Helper()
	srv := httptest.NewServer(rpchttp.NewHandler(h, opts))
	t.Cleanup(srv.Close)
	client := rpchttp.NewClient(srv.URL)
	client.Client = &http.Client{Transport: &http.Transport{}}
	t.Cleanup(client.Client.CloseIdleConnections)
	return srv, client
}

func TestClient(t *testing.T) {
	rpctest.CheckLeaks(t)
	noted := make(chan string, 1)
	h := runtime.HandlerFunc(func(ctx context.Context, req *runtime.Request) (json.RawMessage, error) {
		if req.Method == "note" {
			noted <- string(req.Params)
		}
		if runtime.ConnFromContext(ctx) != nil {
			t.Error("ConnFromContext over HTTP is not nil")
		}
		return specHandler.ServeRPC(ctx, req)
	})
	_, client := newServer(t, h, rpchttp.Options{})
	ctx := context.Background()
	var _ runtime.Caller = client

	var diff int
	if err := client.Call(ctx, "subtract", []int{42, 23}, &diff); err != nil || diff != 19 {
		t.Fatalf("Call: %d, %v", diff, err)
	}
	rpctest.WantError(t, client.Call(ctx, "nope", nil, nil), runtime.CodeMethodNotFound)
	if err := client.Notify(ctx, "note", []int{1}); err != nil {
		t.Fatalf("Notify: %v", err)
	}
	if got := <-noted; got != "[1]" {
		t.Errorf("notification params %s", got)
	}
	var sum int
	calls := []*runtime.BatchCall{
		{Method: "sum", Params: []int{1, 2, 0}, Result: &sum},
		{Method: "update", Notification: true},
		{Method: "nope"},
	}
	if err := client.Batch(ctx, calls); err != nil {
		t.Fatal(err)
	}
	if sum != 3 || calls[0].Err != nil {
		t.Errorf("batch sum: %d, %v", sum, calls[0].Err)
	}
	rpctest.WantError(t, calls[2].Err, runtime.CodeMethodNotFound)
	if err := client.Batch(ctx, []*runtime.BatchCall{{Method: "update", Notification: true}}); err != nil {
		t.Errorf("batch of notifications: %v", err)
	}
}

func TestHandlerStatuses(t *testing.T) {
	rpctest.CheckLeaks(t)
	srv, client := newServer(t, specHandler, rpchttp.Options{MaxMessageSize: 256})
	hc := client.Client

	resp, err := hc.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "POST" {
		t.Errorf("GET: %s, Allow %q", resp.Status, resp.Header.Get("Allow"))
	}

	big := `{"jsonrpc":"2.0","method":"sum","params":[` + strings.Repeat("1,", 200) + `1],"id":1}`
	resp, err = hc.Post(srv.URL, "application/json", strings.NewReader(big))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(string(body), `"code":-32600`) {
		t.Errorf("oversized: %s %s", resp.Status, body)
	}
	// The client surfaces the JSON-RPC error in a 413 body as a *runtime.Error.
	rpctest.WantError(t, client.Call(context.Background(), "sum", json.RawMessage(big[strings.Index(big, "["):strings.LastIndex(big, "]")+1]), nil), runtime.CodeInvalidRequest)
	var sum int
	if err := client.Call(context.Background(), "sum", []int{1, 1, 0}, &sum); err != nil || sum != 2 {
		t.Fatalf("call after an oversized one: %d, %v", sum, err)
	}
}

func TestHandlerContextIsRequestContext(t *testing.T) {
	rpctest.CheckLeaks(t)
	started := make(chan struct{})
	ended := make(chan error, 1)
	h := runtime.HandlerFunc(func(ctx context.Context, req *runtime.Request) (json.RawMessage, error) {
		close(started)
		<-ctx.Done()
		ended <- ctx.Err()
		return nil, ctx.Err()
	})
	srv, client := newServer(t, h, rpchttp.Options{})
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-started
		cancel()
	}()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL, bytes.NewReader([]byte(`{"jsonrpc":"2.0","method":"x","id":1}`)))
	req.Header.Set("Content-Type", "application/json")
	_, err := client.Client.Do(req)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Do: %v", err)
	}
	if err := <-ended; !errors.Is(err, context.Canceled) {
		t.Errorf("handler ctx: %v", err)
	}
}

// specExamples are section 7's examples plus two cases section 4 requires (as in
// package runtime's wire tests).
var specExamples = append(slices.Clone(jsonrpcspec.Examples),
	// A null id is a request, not a notification.
	jsonrpcspec.Example{Name: "null id", Request: `{"jsonrpc": "2.0", "method": "subtract", "params": [1, 1], "id": null}`,
		Reply: `{"jsonrpc": "2.0", "result": 0, "id": null}`},
	jsonrpcspec.Example{Name: "unknown method data", Request: `{"jsonrpc":"2.0","method":"nope","id":7}`,
		Reply: `{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found","data":"nope"},"id":7}`},
	// The server sends no requests, so a response POSTed to it is an Invalid Request.
	jsonrpcspec.Example{Name: "stray response", Request: `{"jsonrpc":"2.0","result":1,"id":3}`,
		Reply: `{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request"},"id":3}`},
	jsonrpcspec.Example{Name: "stray response in a batch", Request: `[{"jsonrpc":"2.0","error":{"code":1,"message":"x"},"id":4}]`,
		Reply: `[{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request"},"id":4}]`},
)

func TestSpecExamples(t *testing.T) {
	rpctest.CheckLeaks(t)
	srv := httptest.NewServer(rpchttp.NewHandler(specHandler, rpchttp.Options{}))
	defer srv.Close()
	client := srv.Client()
	defer client.CloseIdleConnections()
	for _, ex := range specExamples {
		resp, err := client.Post(srv.URL, "application/json", bytes.NewReader([]byte(ex.Request)))
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if ex.Reply == "" {
			if resp.StatusCode != http.StatusNoContent || len(body) != 0 {
				t.Errorf("%s: got %s %q, want 204 with an empty body", ex.Name, resp.Status, body)
			}
			continue
		}
		if resp.StatusCode != http.StatusOK {
			t.Errorf("%s: status %s, want 200", ex.Name, resp.Status)
		}
		if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
			t.Errorf("%s: Content-Type %q", ex.Name, ct)
		}
		if !rpctest.SameJSON(t, string(body), ex.Reply) {
			t.Errorf("%s:\n got %s\nwant %s", ex.Name, body, ex.Reply)
		}
	}
}

func TestBatchRejectedAsAWhole(t *testing.T) {
	rpctest.CheckLeaks(t)
	_, client := newServer(t, specHandler, rpchttp.Options{NoBatches: true})
	calls := []*runtime.BatchCall{{Method: "sum", Params: []int{1, 2, 3}, Result: new(int)}}
	rpctest.WantError(t, client.Batch(context.Background(), calls), runtime.CodeInvalidRequest)
	if calls[0].Err != nil {
		t.Errorf("call error set: %v", calls[0].Err)
	}
	// A batch of notifications only gets 204 whatever the server thinks of batches.
	if err := client.Batch(context.Background(), []*runtime.BatchCall{{Method: "update", Notification: true}}); err != nil {
		t.Errorf("batch of notifications: %v", err)
	}
}

// TestClientReplies runs the client against canned HTTP replies.
func TestClientReplies(t *testing.T) {
	rpctest.CheckLeaks(t)
	var status int
	var reply string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, reply)
	}))
	defer srv.Close()
	client := rpchttp.NewClient(srv.URL)
	client.Client = &http.Client{Transport: &http.Transport{}}
	defer client.Client.CloseIdleConnections()
	ctx := context.Background()

	errText := func(err error) string {
		if err == nil {
			return "<nil>"
		}
		return err.Error()
	}
	for _, tc := range []struct {
		name, reply string
		status      int
		want        string // the error text of Call(ctx, "m", nil, &result) with the first id
	}{
		{"error body on failure", `{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"busy"}}`, 503, "call m: jsonrpc: busy (code -32000)"},
		{"plain failure", `oops`, 500, "call m: http status 500 Internal Server Error"},
		{"malformed", `{"jsonrpc":"2.0"`, 200, `call m: malformed response "{\"jsonrpc\":\"2.0\""`},
		{"not a response", `{"jsonrpc":"2.0","method":"m","id":1}`, 200, `call m: malformed response "{\"jsonrpc\":\"2.0\",\"method\":\"m\",\"id\":1}"`},
		{"wrong id", `{"jsonrpc":"2.0","result":1,"id":99}`, 200, "call m: response id 99 does not match request id 1"},
		{"error with any id", `{"jsonrpc":"2.0","error":{"code":7,"message":"no"},"id":null}`, 200, "jsonrpc: no (code 7)"},
		{"malformed error object", `{"jsonrpc":"2.0","error":"no","id":1}`, 200, "jsonrpc: malformed error object: json: cannot unmarshal string into Go value of type runtime.Error"},
		{"undecodable result", `{"jsonrpc":"2.0","result":"x","id":1}`, 200, "decode result of m: json: cannot unmarshal string into Go value of type int"},
		{"result", `{"jsonrpc":"2.0","result":5,"id":1}`, 200, "<nil>"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, reply = tc.status, tc.reply
			client := &rpchttp.Client{URL: client.URL, Client: client.Client}
			var result int
			if got := errText(client.Call(ctx, "m", nil, &result)); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}

	for _, tc := range []struct {
		name, reply string
		want        string   // the error text of the whole batch
		wantCalls   []string // the error texts of the calls
	}{
		{"null", `null`, `batch: malformed response "null"`, []string{"<nil>", "<nil>"}},
		{"object without error", `{"jsonrpc":"2.0","result":1,"id":1}`, `batch: malformed response "{\"jsonrpc\":\"2.0\",\"result\":1,\"id\":1}"`, []string{"<nil>", "<nil>"}},
		{"whole-batch error", `{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request"},"id":null}`, "jsonrpc: Invalid Request (code -32600)", []string{"<nil>", "<nil>"}},
		{"empty", `[]`, "<nil>", []string{"batch: no response for a", "batch: no response for b"}},
		{"partial, junk and unknown ids", `[{"jsonrpc":"2.0","result":1,"id":2},7,{"jsonrpc":"2.0","result":1,"id":5}]`, "<nil>", []string{"batch: no response for a", "<nil>"}},
		{"one error", `[{"jsonrpc":"2.0","result":1,"id":1},{"jsonrpc":"2.0","error":{"code":3,"message":"no"},"id":2}]`, "<nil>", []string{"<nil>", "jsonrpc: no (code 3)"}},
	} {
		t.Run("batch/"+tc.name, func(t *testing.T) {
			status, reply = 200, tc.reply
			client := &rpchttp.Client{URL: client.URL, Client: client.Client}
			calls := []*runtime.BatchCall{{Method: "a"}, {Method: "b"}}
			if got := errText(client.Batch(ctx, calls)); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
			for i, c := range calls {
				if got := errText(c.Err); got != tc.wantCalls[i] {
					t.Errorf("call %d: got %s, want %s", i, got, tc.wantCalls[i])
				}
			}
		})
	}
}

func TestClientHeaders(t *testing.T) {
	rpctest.CheckLeaks(t)
	got := make(chan http.Header, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- r.Header.Clone()
		w.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()
	client := rpchttp.NewClient(srv.URL)
	client.Client = &http.Client{Transport: &http.Transport{}}
	defer client.Client.CloseIdleConnections()
	client.Header = http.Header{"Authorization": {"Bearer t"}, "Content-Type": {"text/plain"}}
	if err := client.Notify(context.Background(), "n", nil); err != nil {
		t.Fatal(err)
	}
	h := <-got
	if h.Get("Authorization") != "Bearer t" || h.Get("Content-Type") != "application/json" || h.Get("Accept") != "application/json" {
		t.Errorf("headers %v", h)
	}
}
