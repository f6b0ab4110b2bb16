package rpchttp_test

import (
	"bytes"
	"encoding/json"
	"errors"
	goruntime "runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/internal/jsonrpcspec"
	"github.com/rpcgen/rpcgen/runtime"
)

// These helpers are trimmed copies of those in package runtime's tests.

// checkLeaks fails t if goroutines started during the test are still running once its
// other cleanups have run. Register it first: cleanups run last-in, first-out.
func checkLeaks(t *testing.T) {
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

// specHandler is the generated dispatcher of the service behind the examples in
// section 7 of the JSON-RPC 2.0 specification.
var specHandler = jsonrpcspec.NewSpecHandler(&jsonrpcspec.Impl{})

// normalize decodes a JSON message for comparison: member order is ignored, batch
// replies are sorted (their order is free) and error data is dropped when want has none.
func normalize(t *testing.T, raw string, keepData bool) any {
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

// sameJSON reports whether got matches want as JSON (see normalize).
func sameJSON(t *testing.T, got, want string) bool {
	t.Helper()
	keepData := strings.Contains(want, `"data"`)
	g, w := normalize(t, got, keepData), normalize(t, want, keepData)
	gj, _ := json.Marshal(g)
	wj, _ := json.Marshal(w)
	return bytes.Equal(gj, wj)
}

// wantRPCError checks that err is a *runtime.Error with the given code.
func wantRPCError(t *testing.T, err error, code int64) *runtime.Error {
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
