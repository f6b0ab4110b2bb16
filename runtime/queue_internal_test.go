package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// scriptFramer hands the reader one message per receive on in, so the test knows
// exactly how many messages the connection has read; it records what is written.
type scriptFramer struct {
	in     chan []byte
	out    chan []byte
	closed chan struct{}
	once   sync.Once
	reads  atomic.Int64 // messages handed to the reader
}

func newScriptFramer() *scriptFramer {
	return &scriptFramer{in: make(chan []byte), out: make(chan []byte, 1024), closed: make(chan struct{})}
}

func (f *scriptFramer) ReadMessage() ([]byte, error) {
	select {
	case msg := <-f.in:
		f.reads.Add(1)
		return msg, nil
	case <-f.closed:
		return nil, io.EOF
	}
}

func (f *scriptFramer) WriteMessage(msg []byte) error {
	select {
	case f.out <- append([]byte(nil), msg...):
		return nil
	case <-f.closed:
		return io.ErrClosedPipe
	}
}

func (f *scriptFramer) Close() error {
	f.once.Do(func() { close(f.closed) })
	return nil
}

// queueState reports the running handlers, the queued jobs and their bytes, and
// whether the reader waits for room.
func (c *Conn) queueState() (running, queued, bytes int, readerWaits bool) {
	c.qmu.Lock()
	defer c.qmu.Unlock()
	return c.running, c.qlen, c.qbytes, c.rwait
}

// stateWatch wakes a test when a Conn's reader parks or Shutdown starts
// draining (Options.stateChanged).
type stateWatch chan struct{}

func newStateWatch() stateWatch { return make(stateWatch, 1) }

// options returns opts with w as its stateChanged seam.
func (w stateWatch) options(opts Options) Options {
	opts.stateChanged = func() {
		select {
		case w <- struct{}{}:
		default: // a wake-up is pending already
		}
	}
	return opts
}

// waitFor waits until cond holds, looking again at each state change.
func (w stateWatch) waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	timeout := time.NewTimer(10 * time.Second)
	defer timeout.Stop()
	for !cond() {
		select {
		case <-w:
		case <-timeout.C:
			t.Fatalf("%s: not within 10s", what)
		}
	}
}

// waitReaderParked waits until the reader waits for room in the queue.
func waitReaderParked(t *testing.T, c *Conn, w stateWatch) {
	t.Helper()
	w.waitFor(t, "the reader waits for room in the queue", func() bool {
		_, _, _, parked := c.queueState()
		return parked
	})
}

// TestQueueBound floods a connection whose handlers are all blocked (not on the peer):
// it reads MaxInflight requests into handlers, MaxQueued into the queue and one more,
// then stops reading, however many the peer has to send. Released, it serves them all.
func TestQueueBound(t *testing.T) {
	const inflight, queued, flood = 3, 4, 100
	release := make(chan struct{})
	h := HandlerFunc(func(ctx context.Context, req *Request) (json.RawMessage, error) {
		<-release
		return json.RawMessage(`true`), nil
	})
	f := newScriptFramer()
	w := newStateWatch()
	c := NewConn(f, w.options(Options{Handler: h, MaxInflight: inflight, MaxQueued: queued}))
	defer c.Close()
	go func() {
		for i := range flood {
			f.in <- fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"m"}`, i)
		}
	}()
	waitReaderParked(t, c, w)
	// Parked, the reader cannot read on until a handler finishes, and none can.
	running, q, qbytes, _ := c.queueState()
	if running != inflight || q != queued {
		t.Fatalf("running %d, queued %d; want %d and %d", running, q, inflight, queued)
	}
	if qbytes <= 0 || qbytes > c.opts.MaxMessageSize {
		t.Errorf("queued bytes %d", qbytes)
	}
	if n := f.reads.Load(); n != inflight+queued+1 {
		t.Errorf("the connection read %d of %d requests while its handlers were blocked, want %d", n, flood, inflight+queued+1)
	}
	close(release)
	seen := make(map[string]bool)
	for range flood {
		var m struct{ ID json.RawMessage }
		if err := json.Unmarshal(<-f.out, &m); err != nil {
			t.Fatal(err)
		}
		seen[string(m.ID)] = true
	}
	if len(seen) != flood {
		t.Errorf("%d distinct responses, want %d", len(seen), flood)
	}
}

// TestQueueOrder: queued requests start in the order they came.
func TestQueueOrder(t *testing.T) {
	const n = 20
	release := make(chan struct{})
	var order []string // appended by one handler at a time: MaxInflight is 1
	h := HandlerFunc(func(ctx context.Context, req *Request) (json.RawMessage, error) {
		order = append(order, req.ID.String())
		<-release
		return nil, nil
	})
	f := newScriptFramer()
	w := newStateWatch()
	c := NewConn(f, w.options(Options{Handler: h, MaxInflight: 1, MaxQueued: 5}))
	defer c.Close()
	go func() {
		for i := range n {
			f.in <- fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"m"}`, i)
		}
	}()
	waitReaderParked(t, c, w)
	close(release)
	for range n {
		<-f.out
	}
	for i, id := range order {
		if id != fmt.Sprint(i) {
			t.Fatalf("order %v", order)
		}
	}
}

// TestQueueByteBound: the queue holds at most MaxMessageSize bytes, though always one
// message.
func TestQueueByteBound(t *testing.T) {
	release := make(chan struct{})
	h := HandlerFunc(func(ctx context.Context, req *Request) (json.RawMessage, error) {
		<-release
		return nil, nil
	})
	f := newScriptFramer()
	const limit = 200
	w := newStateWatch()
	c := NewConn(f, w.options(Options{Handler: h, MaxInflight: 1, MaxQueued: 100, MaxMessageSize: limit}))
	defer func() {
		close(release)
		c.Close()
	}()
	msg := func(i int) []byte {
		// 80 bytes each: two fit in 200, three do not.
		b := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"m","params":[""]}`, i)
		pad := make([]byte, 80-len(b))
		for i := range pad {
			pad[i] = 'x'
		}
		return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"m","params":["%s"]}`, i, pad)
	}
	for i := range 4 { // one runs, two are queued, the reader holds the fourth
		if len(msg(i)) != 80 {
			t.Fatalf("message of %d bytes", len(msg(i)))
		}
		f.in <- msg(i)
	}
	waitReaderParked(t, c, w)
	if _, q, qbytes, _ := c.queueState(); q != 2 || qbytes != 160 {
		t.Fatalf("queued %d (%d bytes), want 2 (160 bytes)", q, qbytes)
	}
}

// TestShutdownServesQueue: Shutdown serves what was queued before it began and refuses
// what comes after.
func TestShutdownServesQueue(t *testing.T) {
	release := make(chan struct{})
	started := make(chan struct{}, 1)
	h := HandlerFunc(func(ctx context.Context, req *Request) (json.RawMessage, error) {
		if req.Method == "hold" {
			started <- struct{}{}
			<-release
		}
		return json.RawMessage(`1`), nil
	})
	f := newScriptFramer()
	w := newStateWatch()
	c := NewConn(f, w.options(Options{Handler: h, MaxInflight: 1, MaxQueued: 4}))
	f.in <- []byte(`{"jsonrpc":"2.0","id":1,"method":"hold"}`)
	<-started
	f.in <- []byte(`{"jsonrpc":"2.0","id":2,"method":"m"}`)
	// Once the reader takes the next message, the previous one is queued.
	f.in <- []byte(`{"jsonrpc":"2.0","method":"note"}`)
	shut := make(chan error, 1)
	go func() { shut <- c.Shutdown(context.Background()) }()
	w.waitFor(t, "Shutdown drains", c.draining.Load)
	f.in <- []byte(`{"jsonrpc":"2.0","id":3,"method":"m"}`)
	// Handlers are still blocked, so the refusal is the first thing written.
	refusal := `{"jsonrpc":"2.0","id":3,"error":{"code":-32000,"message":"connection is shutting down"}}`
	if m := string(<-f.out); m != refusal {
		t.Errorf("got %s, want %s", m, refusal)
	}
	close(release)
	if err := <-shut; err != nil {
		t.Fatal(err)
	}
	close(f.out)
	var got []string
	for m := range f.out {
		got = append(got, string(m))
	}
	want := []string{`{"jsonrpc":"2.0","id":1,"result":1}`, `{"jsonrpc":"2.0","id":2,"result":1}`}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
