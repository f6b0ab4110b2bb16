package otel

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
)

// members lists the members the scanner walks: key=value each.
func members(raw []byte, fast bool) []string {
	var out []string
	if fast {
		o, ok := scanObject(raw)
		for ok {
			k, v, more := o.next()
			if !more {
				break
			}
			out = append(out, fmt.Sprintf("%s=%s", k, v))
		}
		return out
	}
	o, ok := runtime.ScanObject(raw)
	for ok {
		k, v, more := o.Next()
		if !more {
			break
		}
		out = append(out, fmt.Sprintf("%s=%s", k, v))
	}
	return out
}

// TestScanObjectAsRuntime: the middleware's scanner walks valid objects as
// runtime.ScanObject does (escaped keys unescaped, strings with escaped
// quotes and backslashes, nesting, whitespace), and stops on malformed
// input without reading past it.
func TestScanObjectAsRuntime(t *testing.T) {
	valid := []string{
		`{}`, ` { } `,
		`{"name":"add","arguments":{"a":1,"b":"x\"}"},"_meta":{"traceparent":"00-1-2-01","io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`,
		`{ "na\u006de" : "a\\" , "arguments" : [1, {"]":"}"}, "\\\""] , "n": -1.5e3, "t": true, "f": false, "z": null }`,
		`{"a\\":"\\\\","b":"\u0022","c":{"d":{"e":[[]]}}}`,
		"{\n\t\"_meta\"\r\n:\t{\"baggage\":\"k=v\"}\n}",
	}
	for _, in := range valid {
		want, got := members([]byte(in), false), members([]byte(in), true)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s:\n got %q\nwant %q", in, got, want)
		}
	}
	for _, in := range []string{`{"a":`, `{"a":"b`, `{"a" "b"}`, `{"a":{"b":1}`, `{"a\":1}`, `{a:1}`, `[1]`, `"x"`, ``, `{"a":1,`, `{"a":"\`, `{"a":,}`} {
		members([]byte(in), true) // no panic, no endless loop
	}
}

func FuzzScanObject(f *testing.F) {
	f.Add([]byte(`{"name":"add","arguments":{"a":1},"_meta":{"traceparent":"x"}}`))
	f.Add([]byte(`{"a\\":"\"","b":[{"c":"]"}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		got := members(b, true)
		if json.Valid(b) {
			if want := members(b, false); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("%s:\n got %q\nwant %q", b, got, want)
			}
		}
	})
}

// TestMayBeError: every result ResultIsError finds an error in passes the
// pre-check, escaped keys included.
func TestMayBeError(t *testing.T) {
	for _, res := range []string{
		`{"isError":true}`, `{"content":[],"isError":true}`, `{"is\u0045rror":true}`,
		`{"\u0069\u0073\u0045\u0072\u0072\u006f\u0072":true}`, `{"content":[{"type":"text","text":"{\"sum\":3}"}]}`, `{}`,
	} {
		if mcpclient.ResultIsError(json.RawMessage(res)) && !mayBeError([]byte(res)) {
			t.Errorf("%s: an isError result passed the pre-check", res)
		}
	}
	if mayBeError([]byte(`{"content":[{"type":"text","text":"{\"sum\":3}"}],"structuredContent":{"sum":3}}`)) {
		t.Error("a result with no E was not passed over")
	}
}
