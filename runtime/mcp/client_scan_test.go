package mcp

import (
	"testing"

	"github.com/rpcgen/rpcgen/runtime"
)

func FuzzClientEnvelope(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":3,"result":{"content":[],"structuredContent":{"a":1},"isError":false}}`,
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":2,"progress":1}}`,
		`{"id":"x","error":{"code":-1,"message":"m"}}`,
		`{"a\u0069d":1, "method" : "ping" }`,
		`{"id":1,"result":{"x":"\"}"}}`,
		`[1,2]`, `{`, `{"id":}`, `{"id":1,,}`, `{"id"1}`, `"str`, `{"a":[1,{"b":"c"]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, msg []byte) {
		var env clientEnvelope
		if !env.parse(msg) {
			return
		}
		env.isResponse()
		env.methodIs("ping")
		clientParseID(env.id)
		if o, ok := runtime.ScanObject(env.result); ok {
			for {
				key, val, ok := o.Next()
				if !ok {
					break
				}
				if string(key) == "resultType" {
					clientStringIs(val, "complete")
				}
			}
		}
	})
}

func TestClientEnvelope(t *testing.T) {
	var env clientEnvelope
	if !env.parse([]byte(` {"jsonrpc":"2.0", "id" : 12 ,"result":{"x":"}\"{"},"m\u0065thod":null} `)) {
		t.Fatal("parse failed")
	}
	if string(env.id) != "12" || string(env.result) != `{"x":"}\"{"}` || string(env.method) != "null" {
		t.Errorf("id %s result %s method %s", env.id, env.result, env.method)
	}
	for _, bad := range []string{`{"id":1`, `{"id" 1}`, `{1:2}`, `{"id":1,"x":}`, `[]`, ``, `{"id":1 "x":2}`, `{,"id":1}`, `{"id":1,}`} {
		var e clientEnvelope
		if e.parse([]byte(bad)) {
			t.Errorf("parse(%q) succeeded", bad)
		}
	}
	for in, want := range map[string]int64{"1": 1, "42": 42, "0": 0, "-1": 0, "1.5": 0, `"1"`: 0, "": 0, "1234567890123456789": 0} {
		if got, ok := clientParseID([]byte(in)); got != want || ok != (want != 0) {
			t.Errorf("clientParseID(%q) = %d, %v", in, got, ok)
		}
	}
}
