package mcpbench

import (
	"bufio"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// hijackable says it can be hijacked (it cannot), as net/http's HTTP/1.x
// ResponseWriter can: mcphttp then runs a legacy call inline.
type hijackable struct{ *httptest.ResponseRecorder }

func (hijackable) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	return nil, nil, errors.New("no connection")
}

func procCPU() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// BenchmarkHandlerOnly serves a legacy tools/call add through each server's
// http.Handler with a recorder, no sockets and no client: the handlers'
// own CPU per call, without the network's noise.
func BenchmarkHandlerOnly(b *testing.B) {
	for _, enc := range encodings {
		for _, impl := range []string{"rpcgen", "reference-tuned"} {
			b.Run(enc+"/impl="+impl, func(b *testing.B) {
				var h http.Handler
				if impl == "rpcgen" {
					hh, release := rpcgenHTTP(EraLegacy, enc)
					defer release()
					h = hh
				} else {
					h = newRefTunedHTTP(enc == EncSSE)
				}
				post := func(body, sid string) *httptest.ResponseRecorder {
					r := httptest.NewRequest("POST", "http://127.0.0.1/mcp", strings.NewReader(body))
					r.Header["Content-Type"] = []string{"application/json"}
					r.Header["Accept"] = []string{"application/json, text/event-stream"}
					if sid != "" {
						r.Header["Mcp-Session-Id"] = []string{sid}
						r.Header["Mcp-Protocol-Version"] = []string{"2025-11-25"}
					}
					w := hijackable{httptest.NewRecorder()}
					h.ServeHTTP(w, r)
					return w.ResponseRecorder
				}
				w := post(string(httpInitBody), "")
				sid := w.Header().Get("Mcp-Session-Id")
				if sid == "" {
					b.Fatal("no session", w.Code, w.Body.String())
				}
				post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, sid)
				b.ReportAllocs()
				cpu0 := procCPU()
				i := 0
				for b.Loop() {
					i++
					w := post(`{"jsonrpc":"2.0","id":`+strconv.Itoa(i)+`,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}`, sid)
					if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `"sum":3`) {
						b.Fatal(w.Code, w.Body.String())
					}
				}
				b.ReportMetric(float64(procCPU()-cpu0)/float64(b.N), "cpu-ns/op")
			})
		}
	}
}
