package loadtest

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"sync"
	"sync/atomic"

	"github.com/rpcgen/rpcgen/runtime"
)

// Counting wraps h to count the handlers running, so that a test can see
// that those of clients gone have ended.
func Counting(h runtime.Handler) (runtime.Handler, *atomic.Int64) {
	var running atomic.Int64
	return runtime.HandlerFunc(func(ctx context.Context, req *runtime.Request) (json.RawMessage, error) {
		running.Add(1)
		defer running.Add(-1)
		return h.ServeRPC(ctx, req)
	}), &running
}

// VanishReport is what Vanish did.
type VanishReport struct {
	// Connections counts the clients that vanished: Unread closed with
	// their requests perhaps not yet read by the server, MidAnswer once
	// the server had begun answering, MidMessage in the middle of sending
	// a request. Reset counts those closed with a TCP reset rather than
	// an orderly close.
	Connections, Unread, MidAnswer, MidMessage, Reset int64
}

func (r VanishReport) String() string {
	return fmt.Sprintf("%d clients vanished mid-call (%d with their requests perhaps unread, %d mid-answer, %d mid-message; %d with a TCP reset)",
		r.Connections, r.Unread, r.MidAnswer, r.MidMessage, r.Reset)
}

// The requests a vanishing client sends: a call that would run a minute
// (its handler must be cancelled), an answer of 256 KiB, a stream of a
// million items, a quick call.
var vanishRequests = []string{
	`{"jsonrpc":"2.0","id":1,"method":"sleep","params":[60000,"never read"]}`,
	`{"jsonrpc":"2.0","id":2,"method":"big","params":[262144]}`,
	`{"jsonrpc":"2.0","id":3,"method":"count","params":[1000000,0]}`,
	`{"jsonrpc":"2.0","id":4,"method":"add","params":{"a":1,"b":2}}`,
}

// Vanish has workers clients at a time connect with dial and vanish in the
// middle of their calls, until ctx ends: each sends vanishRequests (framed by
// frame, as the transport carries messages) and closes its connection
// without a word, in turn at once, once the first bytes of an answer have
// come, or halfway through a last request; every other TCP connection with
// a reset (SO_LINGER 0). It returns at ctx's end, or at the first dial or
// write that fails.
func Vanish(ctx context.Context, workers int, dial func(context.Context) (net.Conn, error), frame func(msg []byte) []byte) (VanishReport, error) {
	var r VanishReport
	var conns, unread, midAnswer, midMessage, reset atomic.Int64
	var once sync.Once
	var first error
	fail := func(err error) {
		once.Do(func() { first = err })
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := w; ctx.Err() == nil; i += workers {
				nc, err := dial(ctx)
				if err != nil {
					if ctx.Err() == nil {
						fail(fmt.Errorf("dial: %w", err))
						cancel()
					}
					return
				}
				var out []byte
				for _, req := range vanishRequests {
					out = append(out, frame([]byte(req))...)
				}
				if i%3 == 2 {
					last := frame([]byte(`{"jsonrpc":"2.0","id":5,"method":"add","params":{"a":1,"b":2}}`))
					out = append(out, last[:len(last)/2]...)
				}
				if _, err := nc.Write(out); err != nil {
					nc.Close()
					fail(fmt.Errorf("write: %w", err))
					cancel()
					return
				}
				switch i % 3 {
				case 0:
					unread.Add(1)
				case 1:
					if _, err := nc.Read(make([]byte, 1)); err != nil {
						nc.Close()
						fail(fmt.Errorf("no answer came: %w", err))
						cancel()
						return
					}
					midAnswer.Add(1)
				case 2:
					midMessage.Add(1)
				}
				if tc, ok := nc.(interface{ SetLinger(int) error }); ok && i%2 == 1 {
					tc.SetLinger(0) // a TCP connection
					reset.Add(1)
				}
				nc.Close()
				conns.Add(1)
			}
		})
	}
	wg.Wait()
	r.Connections, r.Unread, r.MidAnswer, r.MidMessage, r.Reset = conns.Load(), unread.Load(), midAnswer.Load(), midMessage.Load(), reset.Load()
	return r, first
}
