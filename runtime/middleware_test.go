package runtime_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/runtime"
)

// recorder is middleware that writes what it sees to a shared log.
type recorder struct {
	mu  sync.Mutex
	log []string
}

func (r *recorder) add(s string) {
	r.mu.Lock()
	r.log = append(r.log, s)
	r.mu.Unlock()
}

func (r *recorder) lines() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.log)
}

func (r *recorder) mw(name string) runtime.Middleware {
	return func(next runtime.Handler) runtime.Handler {
		return runtime.HandlerFunc(func(ctx context.Context, req *runtime.Request) (json.RawMessage, error) {
			r.add(fmt.Sprintf("%s> %s id=%s transport=%s", name, req.Method, runtime.RequestIDFromContext(ctx), runtime.TransportFromContext(ctx)))
			res, err := next.ServeRPC(ctx, req)
			r.add(fmt.Sprintf("%s< %s err=%v", name, res, err))
			return res, err
		})
	}
}

func TestMiddlewareChainOrder(t *testing.T) {
	var rec recorder
	client, _ := connPair(t, runtime.Options{}, runtime.Options{
		Handler:    addHandler,
		Middleware: []runtime.Middleware{rec.mw("a"), nil, rec.mw("b")},
		Transport:  runtime.TransportUnix,
	})
	var sum int
	if err := client.Call(context.Background(), "arith.add", &addParams{A: 2, B: 3}, &sum); err != nil || sum != 5 {
		t.Fatalf("add: %d, %v", sum, err)
	}
	want := []string{
		"a> arith.add id=1 transport=unix",
		"b> arith.add id=1 transport=unix",
		"b< 5 err=<nil>",
		"a< 5 err=<nil>",
	}
	if got := rec.lines(); !slices.Equal(got, want) {
		t.Fatalf("middleware saw\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A nil Handler still runs the middleware, which sees Method not found.
func TestMiddlewareNilHandler(t *testing.T) {
	var rec recorder
	p := runtime.NewProcessor(runtime.Options{Middleware: []runtime.Middleware{rec.mw("m")}})
	reply := p.Process(context.Background(), []byte(`{"jsonrpc":"2.0","id":"x","method":"nope"}`), nil)
	if !strings.Contains(string(reply), `"code":-32601`) {
		t.Fatalf("reply %s, want Method not found", reply)
	}
	got := rec.lines()
	if len(got) != 2 || got[0] != `m> nope id="x" transport=` || !strings.Contains(got[1], "Method not found") {
		t.Fatalf("middleware saw %q", got)
	}
}

// A panic in middleware is an Internal error for that request; the connection
// keeps serving.
func TestMiddlewarePanicIsAnError(t *testing.T) {
	panicky := func(next runtime.Handler) runtime.Handler {
		return runtime.HandlerFunc(func(ctx context.Context, req *runtime.Request) (json.RawMessage, error) {
			if req.Method == "boom" {
				panic("middleware bug")
			}
			return next.ServeRPC(ctx, req)
		})
	}
	for _, name := range []string{"conn", "processor"} {
		t.Run(name, func(t *testing.T) {
			opts := runtime.Options{Handler: addHandler, Middleware: []runtime.Middleware{panicky}}
			if name == "processor" {
				p := runtime.NewProcessor(opts)
				reply := p.Process(context.Background(), []byte(`[{"jsonrpc":"2.0","id":1,"method":"boom"},{"jsonrpc":"2.0","id":2,"method":"arith.add","params":{"a":1,"b":2}}]`), nil)
				if !strings.Contains(string(reply), `"code":-32603`) || !strings.Contains(string(reply), `"result":3`) {
					t.Fatalf("reply %s, want an internal error and the sum", reply)
				}
				return
			}
			client, _ := connPair(t, runtime.Options{}, opts)
			err := client.Call(context.Background(), "boom", nil, nil)
			var re *runtime.Error
			if !errors.As(err, &re) || re.Code != runtime.CodeInternalError {
				t.Fatalf("boom: %v, want an Internal error", err)
			}
			var sum int
			if err := client.Call(context.Background(), "arith.add", &addParams{A: 1, B: 2}, &sum); err != nil || sum != 3 {
				t.Fatalf("after the panic: %d, %v", sum, err)
			}
		})
	}
}

// fakeCaller records the calls it gets and answers from a script.
type fakeCaller struct {
	mu    sync.Mutex
	calls []string
	errs  []error // returned by successive calls, then nil
}

func (f *fakeCaller) next(what string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, what)
	if len(f.errs) == 0 {
		return nil
	}
	err := f.errs[0]
	f.errs = f.errs[1:]
	return err
}

func (f *fakeCaller) Call(_ context.Context, method string, _, result any) error {
	if err := f.next("call " + method); err != nil {
		return err
	}
	if p, ok := result.(*int); ok {
		*p = 42
	}
	return nil
}

func (f *fakeCaller) CallIdempotent(_ context.Context, method string, _, _ any) error {
	return f.next("idempotent " + method)
}

func (f *fakeCaller) Notify(_ context.Context, method string, _ any) error {
	return f.next("notify " + method)
}

func (f *fakeCaller) Batch(_ context.Context, calls []*runtime.BatchCall) error {
	return f.next(fmt.Sprintf("batch of %d", len(calls)))
}

func (f *fakeCaller) Transport() string { return "pipe" }

func (f *fakeCaller) log() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.calls)
}

func clientRecorder(r *recorder, name string) runtime.ClientMiddleware {
	return func(next runtime.Invoker) runtime.Invoker {
		return func(ctx context.Context, call *runtime.ClientCall) error {
			r.add(fmt.Sprintf("%s> kind=%d %s idempotent=%v transport=%s", name, call.Kind, call.Method, call.Idempotent, call.Transport))
			err := next(ctx, call)
			r.add(fmt.Sprintf("%s< %v", name, err))
			return err
		}
	}
}

func TestWrapCallerForwardsEveryKind(t *testing.T) {
	var rec recorder
	fc := &fakeCaller{}
	w := runtime.WrapCaller(fc, clientRecorder(&rec, "a"), clientRecorder(&rec, "b"))
	ctx := context.Background()
	n, err := runtime.Call[int](ctx, w, "m.call", nil)
	if err != nil || n != 42 {
		t.Fatalf("Call: %d, %v", n, err)
	}
	if _, err := runtime.CallIdempotent[int](ctx, w, "m.get", nil); err != nil {
		t.Fatal(err)
	}
	if err := w.Notify(ctx, "m.note", nil); err != nil {
		t.Fatal(err)
	}
	if err := w.Batch(ctx, []*runtime.BatchCall{{Method: "x"}, {Method: "y"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.CallStream(ctx, "m.watch", nil); err == nil || !strings.Contains(err.Error(), "carries no streams") {
		t.Fatalf("CallStream on a caller without streams: %v", err)
	}
	if got, want := fc.log(), []string{"call m.call", "idempotent m.get", "notify m.note", "batch of 2"}; !slices.Equal(got, want) {
		t.Fatalf("the wrapped caller got %q, want %q", got, want)
	}
	lines := rec.lines()
	want := []string{
		"a> kind=0 m.call idempotent=false transport=pipe", "b> kind=0 m.call idempotent=false transport=pipe", "b< <nil>", "a< <nil>",
		"a> kind=0 m.get idempotent=true transport=pipe", "b> kind=0 m.get idempotent=true transport=pipe", "b< <nil>", "a< <nil>",
		"a> kind=1 m.note idempotent=false transport=pipe", "b> kind=1 m.note idempotent=false transport=pipe", "b< <nil>", "a< <nil>",
		"a> kind=3  idempotent=false transport=pipe", "b> kind=3  idempotent=false transport=pipe", "b< <nil>", "a< <nil>",
	}
	if !slices.Equal(lines[:len(want)], want) {
		t.Fatalf("middleware saw\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}

// A stream through WrapCaller over a real connection: middleware sees the call
// and may wrap the stream to see its end.
func TestWrapCallerStream(t *testing.T) {
	var ended []error
	seeEnd := func(next runtime.Invoker) runtime.Invoker {
		return func(ctx context.Context, call *runtime.ClientCall) error {
			if err := next(ctx, call); err != nil {
				return err
			}
			if call.Kind == runtime.KindStream {
				call.Stream = &endWatcher{ItemStream: call.Stream, ended: &ended}
			}
			return nil
		}
	}
	count := runtime.HandlerFunc(func(ctx context.Context, req *runtime.Request) (json.RawMessage, error) {
		return runtime.ServeStream(ctx, iter.Seq2[int, error](func(yield func(int, error) bool) {
			for i := range 3 {
				if !yield(i, nil) {
					return
				}
			}
		}))
	})
	client, _ := connPair(t, runtime.Options{}, runtime.Options{Handler: count})
	w := runtime.WrapCaller(client, seeEnd)
	var got []int
	for v, err := range runtime.Stream[int](context.Background(), w, "count", nil) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, v)
	}
	if !slices.Equal(got, []int{0, 1, 2}) || len(ended) != 1 || ended[0] != io.EOF {
		t.Fatalf("items %v, ends seen %v", got, ended)
	}
}

type endWatcher struct {
	runtime.ItemStream
	ended *[]error
}

func (e *endWatcher) Next() (json.RawMessage, error) {
	raw, err := e.ItemStream.Next()
	if err != nil {
		*e.ended = append(*e.ended, err)
	}
	return raw, err
}

func TestRetryMiddleware(t *testing.T) {
	fast := runtime.RetryPolicy{Attempts: 3, MinDelay: time.Microsecond, MaxDelay: time.Microsecond}
	lost := fmt.Errorf("call x: %w", runtime.ErrConnectionLost)
	notSent := runtime.NotSent(errors.New("dial: refused"))
	refused := runtime.NewError(-32000, "no")
	cases := []struct {
		name       string
		idempotent bool
		errs       []error
		wantCalls  int
		wantErr    error
	}{
		{"not sent is retried for any method", false, []error{notSent, notSent}, 3, nil},
		{"lost in flight is not retried for a plain method", false, []error{lost}, 1, runtime.ErrConnectionLost},
		{"lost in flight is retried for an idempotent method", true, []error{lost, lost}, 3, nil},
		{"attempts are bounded", true, []error{lost, lost, lost, lost}, 3, runtime.ErrConnectionLost},
		{"an error response is never retried", true, []error{refused}, 1, refused},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fc := &fakeCaller{errs: slices.Clone(c.errs)}
			// Calls of an idempotent method go through Call here (the fake
			// is wrapped as a plain Caller), so Retry alone decides.
			w := runtime.WrapCaller(plainCaller{fc}, runtime.Retry(fast))
			var err error
			if c.idempotent {
				_, err = runtime.CallIdempotent[int](context.Background(), w, "x", nil)
			} else {
				_, err = runtime.Call[int](context.Background(), w, "x", nil)
			}
			if len(fc.log()) != c.wantCalls {
				t.Fatalf("%d attempts, want %d", len(fc.log()), c.wantCalls)
			}
			if c.wantErr == nil && err != nil || c.wantErr != nil && !errors.Is(err, c.wantErr) {
				t.Fatalf("err %v, want %v", err, c.wantErr)
			}
		})
	}
}

// plainCaller hides every method of a Caller but Call and Notify.
type plainCaller struct{ c runtime.Caller }

func (p plainCaller) Call(ctx context.Context, method string, params, result any) error {
	return p.c.Call(ctx, method, params, result)
}

func (p plainCaller) Notify(ctx context.Context, method string, params any) error {
	return p.c.Notify(ctx, method, params)
}

func TestCallHeadersMerge(t *testing.T) {
	ctx := runtime.WithCallHeaders(context.Background(), map[string][]string{"A": {"1"}, "B": {"1"}})
	ctx = runtime.WithCallHeaders(ctx, map[string][]string{"B": {"2"}})
	h := runtime.CallHeadersFromContext(ctx)
	if len(h) != 2 || h["A"][0] != "1" || h["B"][0] != "2" {
		t.Fatalf("headers %v", h)
	}
	if runtime.CallHeadersFromContext(context.Background()) != nil {
		t.Fatal("headers in an empty context")
	}
}

func TestCallHeaderFunc(t *testing.T) {
	calls := 0
	ctx := runtime.WithCallHeaders(context.Background(), map[string][]string{"traceparent": {"old"}, "X-A": {"1"}})
	ctx = runtime.WithCallHeaderFunc(ctx, func(ctx context.Context, set func(k, v string)) {
		calls++
		set("traceparent", "new")
		set("content-TYPE", "x")
	})
	h := map[string][]string{}
	runtime.AddCallHeaders(ctx, h)
	if calls != 1 || len(h) != 3 || h["Traceparent"][0] != "new" || h["X-A"][0] != "1" || h["Content-Type"][0] != "x" {
		t.Fatalf("headers %v after %d calls", h, calls)
	}
}
