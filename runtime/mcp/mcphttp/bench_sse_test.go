package mcphttp

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
)

// cpuTime returns the CPU time (user and system) the process has used, in
// nanoseconds.
func cpuTime() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// BenchmarkHandlerSSE measures a legacy tools/call answered with an event
// stream (Options.SSE) through the handler alone, without sockets, which on
// a busy machine are most of the noise: one call at a time, and from every
// processor at once; cpu-ns/op is the process's CPU time per call. The recorder cannot be taken from net/http, so every
// call runs on a worker, as Options.SSE calls do.
func BenchmarkHandlerSSE(b *testing.B) {
	h, sid := recordedSession(b, &Options{SSE: true})
	body := toolCall(1, "add", `{"a":1,"b":2}`)
	call := func(b *testing.B) {
		r := httptest.NewRequest("POST", "/", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Mcp-Session-Id", sid)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `"sum":3`) {
			b.Fatal(w.Code, w.Body.String())
		}
	}
	b.Run("c=1", func(b *testing.B) {
		b.ReportAllocs()
		cpu0 := cpuTime()
		for b.Loop() {
			call(b)
		}
		b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
	})
	// inline: a ResponseWriter that can be hijacked, as net/http's on
	// HTTP/1.x, so the call runs on the POST's goroutine (inline.go).
	b.Run("inline", func(b *testing.B) {
		b.ReportAllocs()
		cpu0 := cpuTime()
		for b.Loop() {
			r := httptest.NewRequest("POST", "/", strings.NewReader(body))
			r.Header.Set("Content-Type", "application/json")
			r.Header.Set("Mcp-Session-Id", sid)
			w := hijackableRecorder{httptest.NewRecorder()}
			h.ServeHTTP(w, r)
			if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `"sum":3`) {
				b.Fatal(w.Code, w.Body.String())
			}
		}
		b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
	})
	b.Run("parallel", func(b *testing.B) {
		b.ReportAllocs()
		cpu0 := cpuTime()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				call(b)
			}
		})
		b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
	})
}
