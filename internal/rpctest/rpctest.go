// Package rpctest holds the checks the runtime's tests share: goroutine
// leaks, JSON messages compared as JSON, JSON-RPC errors by code, and that
// rpchttp and mcphttp export httpguard.PromptShutdown.
package rpctest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	goruntime "runtime"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rpcgen/rpcgen/runtime"
)

// CheckLeaks fails t if goroutines started during the test are still running once its
// other cleanups have run. Register it first: cleanups run last-in, first-out.
func CheckLeaks(t testing.TB) {
	t.Helper()
	before := goruntime.NumGoroutine()
	t.Cleanup(func() {
		deadline := time.Now().Add(5 * time.Second)
		for {
			n := goruntime.NumGoroutine()
			if n <= before {
				return
			}
			if time.Now().After(deadline) {
				buf := make([]byte, 1<<20)
				buf = buf[:goruntime.Stack(buf, true)]
				t.Errorf("goroutine leak: %d before, %d after\n%s", before, n, buf)
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	})
}

// SameJSON reports whether got matches want as JSON: member order is ignored, batch
// replies are compared as sets (their order is free), and error data is ignored
// when want has none.
func SameJSON(t testing.TB, got, want string) bool {
	t.Helper()
	keepData := strings.Contains(want, `"data"`)
	g, w := normalize(t, got, keepData), normalize(t, want, keepData)
	gj, _ := json.Marshal(g)
	wj, _ := json.Marshal(w)
	return bytes.Equal(gj, wj)
}

func normalize(t testing.TB, raw string, keepData bool) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(raw), &v); err != nil {
		t.Fatalf("not JSON: %v: %s", err, raw)
	}
	strip := func(m any) any {
		obj, ok := m.(map[string]any)
		if !ok || keepData {
			return m
		}
		if e, ok := obj["error"].(map[string]any); ok {
			delete(e, "data")
		}
		return m
	}
	if arr, ok := v.([]any); ok {
		for i := range arr {
			arr[i] = strip(arr[i])
		}
		slices.SortFunc(arr, func(a, b any) int {
			ja, _ := json.Marshal(a)
			jb, _ := json.Marshal(b)
			return bytes.Compare(ja, jb)
		})
		return arr
	}
	return strip(v)
}

// WantError checks that err is a *runtime.Error with the given code, and returns it.
func WantError(t testing.TB, err error, code int64) *runtime.Error {
	t.Helper()
	var rpcErr *runtime.Error
	if !errors.As(err, &rpcErr) {
		t.Fatalf("error %v (%T) is not a *runtime.Error", err, err)
	}
	if rpcErr.Code != code {
		t.Fatalf("error code %d (%s), want %d", rpcErr.Code, rpcErr.Message, code)
	}
	return rpcErr
}

// Synctest runs f in a testing/synctest bubble, as synctest.Test does, with
// sync.Pool emptied (two collections) before and after: the runtime pools
// what a Conn's call waits on, a channel, and a channel made in one bubble
// may not be used outside it (a fatal error), nor does one made outside
// block durably inside. So every test that calls through a Conn in a bubble
// goes through here.
func Synctest(t *testing.T, f func(*testing.T)) {
	t.Helper()
	flush := func() { goruntime.GC(); goruntime.GC() }
	flush()
	defer flush()
	synctest.Test(t, f)
}

// CheckPromptShutdown checks that promptShutdown (rpchttp's or mcphttp's
// PromptShutdown) is httpguard.PromptShutdown, whose own test plays the
// whole scenario: a connection new to the server is closed as Shutdown
// begins. In a synctest bubble, so that a connection left open fails the
// test as a deadlock rather than hanging it.
func CheckPromptShutdown(t *testing.T, promptShutdown func(*http.Server)) {
	t.Helper()
	synctest.Test(t, func(t *testing.T) {
		hs := &http.Server{}
		promptShutdown(hs)
		conn, peer := net.Pipe()
		defer peer.Close()
		hs.ConnState(conn, http.StateNew) // as Serve calls it for a connection it accepted
		if err := hs.Shutdown(context.Background()); err != nil {
			t.Fatal(err)
		}
		if _, err := peer.Read(make([]byte, 1)); err != io.EOF {
			t.Errorf("a new connection after Shutdown: read %v, want io.EOF (closed)", err)
		}
	})
}
