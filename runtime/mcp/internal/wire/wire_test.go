package wire

import (
	"testing"

	"github.com/rpcgen/rpcgen/runtime"
)

func FuzzEnvelope(f *testing.F) {
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
		var env Envelope
		if !env.Scan(msg) {
			return
		}
		env.IsResponse()
		env.MethodIs("ping")
		ParseID(env.ID)
		if o, ok := runtime.ScanObject(env.Result); ok {
			for {
				key, val, ok := o.Next()
				if !ok {
					break
				}
				if string(key) == "resultType" {
					StringIs(val, "complete")
				}
			}
		}
	})
}

func TestEnvelope(t *testing.T) {
	var env Envelope
	if !env.Scan([]byte(` {"jsonrpc":"2.0", "id" : 12 ,"result":{"x":"}\"{"},"m\u0065thod":null} `)) {
		t.Fatal("parse failed")
	}
	if string(env.ID) != "12" || string(env.Result) != `{"x":"}\"{"}` || string(env.Method) != "null" {
		t.Errorf("id %s result %s method %s", env.ID, env.Result, env.Method)
	}
	for _, bad := range []string{`{"id":1`, `{"id" 1}`, `{1:2}`, `{"id":1,"x":}`, `[]`, ``, `{"id":1 "x":2}`, `{,"id":1}`, `{"id":1,}`} {
		var e Envelope
		if e.Scan([]byte(bad)) {
			t.Errorf("parse(%q) succeeded", bad)
		}
	}
	for in, want := range map[string]int64{"1": 1, "42": 42, "0": 0, "-1": 0, "1.5": 0, `"1"`: 0, "": 0, "1234567890123456789": 0} {
		if got, ok := ParseID([]byte(in)); got != want || ok != (want != 0) {
			t.Errorf("ParseID(%q) = %d, %v", in, got, ok)
		}
	}
}

func TestStringIs(t *testing.T) {
	for _, c := range []struct {
		v, s string
		want bool
	}{
		{`"ping"`, "ping", true},
		{`"p\u0069ng"`, "ping", true},
		{`"pin"`, "ping", false},
		{`ping`, "ping", false},
		{`"ping`, "ping", false},
		{``, "", false},
		{`""`, "", true},
	} {
		if got := StringIs([]byte(c.v), c.s); got != c.want {
			t.Errorf("StringIs(%s, %q) = %v", c.v, c.s, got)
		}
	}
}
