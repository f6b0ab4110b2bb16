package httpguard_test

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rpcgen/rpcgen/internal/rpctest"
	"github.com/rpcgen/rpcgen/runtime/internal/httpguard"
)

// watchHandler answers 200 with the length of the body it read through bw,
// or 408 (and closes the connection) when the body came too late; then it
// sleeps for the duration the X-Sleep header gives (a call that outlives
// the body's timeout).
func watchHandler(bw *httpguard.BodyWatch) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := bw.ReadBody(w, r, 1<<20)
		switch {
		case errors.Is(err, httpguard.ErrBodyTimeout):
			w.Header().Set("Connection", "close")
			http.Error(w, `{"code":-32600}`, http.StatusRequestTimeout)
			return
		case err != nil:
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if d, err := time.ParseDuration(r.Header.Get("X-Sleep")); err == nil {
			time.Sleep(d) // the behaviour under test: a call longer than the body's timeout, in virtual time
		}
		fmt.Fprintf(w, "%d", len(b))
	})
}

// TestBodyWatchCutsEachBodyAtItsTimeout: bodies that stall are each cut
// (408, connection closed) their timeout after they started (never before,
// at most a second after), whether they started together, between two ticks
// of the watch's clock while it watched earlier bodies, or after it rested;
// bodies that arrive in time are served, on connections that stay usable, by
// calls longer than the timeout.
func TestBodyWatchCutsEachBodyAtItsTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const timeout = 10 * time.Second
		var bw httpguard.BodyWatch
		bw.SetTimeout(timeout)
		ts := rpctest.NewPipeServer(t, watchHandler(&bw), nil)
		dial := ts.Client().Transport.(*http.Transport).DialContext
		head := "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\n0123456789"

		post := func(sleep time.Duration) {
			t.Helper()
			req, _ := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader("0123456789"))
			req.Header.Set("X-Sleep", sleep.String())
			resp, err := ts.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK || string(b) != "10" {
				t.Fatalf("a body in time: %d %s", resp.StatusCode, b)
			}
		}

		var cuts []chan []rpctest.Stalled
		stall := func(n int) {
			c := make(chan []rpctest.Stalled, 1)
			cuts = append(cuts, c)
			go func() { c <- rpctest.StallBodies(dial, n, head) }()
		}
		stall(3) // at 0 s: the clock starts ticking
		time.Sleep(4*time.Second + 100*time.Millisecond)
		stall(2) // at 4.1 s, between two ticks, queued behind them
		post(0)
		post(2 * timeout) // from 4.1 s to 24.1 s, not cut; the clock rests once the stalled bodies are cut
		post(0)           // at 24.1 s: the clock starts again, and rests a step later
		time.Sleep(30 * time.Second)
		stall(1) // at 54.1 s
		for _, c := range cuts {
			rpctest.WantCutAt(t, <-c, timeout)
		}
		post(0)
	})
}

// BenchmarkBodyWatchReadBody reads a tools/call's body through a watch, as
// mcphttp's handler does for each POST (a recorder, no connection).
func BenchmarkBodyWatchReadBody(b *testing.B) {
	const body = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}`
	var bw httpguard.BodyWatch
	w := httptest.NewRecorder()
	r := httptest.NewRequest(http.MethodPost, "/mcp", nil)
	src := strings.NewReader(body)
	r.Body, r.ContentLength = io.NopCloser(src), int64(len(body))
	b.ReportAllocs()
	for b.Loop() {
		src.Reset(body)
		if got, err := bw.ReadBody(w, r, 1<<20); err != nil || len(got) != len(body) {
			b.Fatal(len(got), err)
		}
	}
}
