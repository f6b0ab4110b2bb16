package jsonscan

import (
	"strings"
	"testing"
)

// skipStringBytewise is SkipString as a walk of every byte: the reference
// the vectorised one is held to.
func skipStringBytewise(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return -1
}

var skipStringCases = []string{
	`""`, `"a"`, `"`, `"abc`, `"\"`, `"\""`, `"\\"`, `"\\\"`, `"\\\""`, `"\\\\"x`, `"a\"b\\"c"`,
	`"\u0022"`, `"x\\\\\\\"y"z"`, `"\`, `"\\`, `"` + strings.Repeat(`\"`, 40) + `"`,
	`"` + strings.Repeat("long text, no escape ", 10) + `" tail`, `"é\"ü"`, "\"\x00\xff\"",
}

func TestSkipStringAsBytewise(t *testing.T) {
	for _, s := range skipStringCases {
		b := []byte(s)
		for i := range b {
			if b[i] != '"' {
				continue
			}
			if got, want := SkipString(b, i), skipStringBytewise(b, i); got != want {
				t.Errorf("SkipString(%q, %d) = %d, want %d", s, i, got, want)
			}
		}
	}
}

// FuzzSkipString holds SkipString to the byte-by-byte walk on any input,
// from every quote in it.
func FuzzSkipString(f *testing.F) {
	for _, s := range skipStringCases {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for i := range b {
			if b[i] != '"' {
				continue
			}
			if got, want := SkipString(b, i), skipStringBytewise(b, i); got != want {
				t.Fatalf("SkipString(%q, %d) = %d, want %d", b, i, got, want)
			}
		}
	})
}

// params is a traced tools/call's params, as ext/otel's middleware scans them.
var params = []byte(`{"name":"add","arguments":{"a":12,"b":1000},"_meta":{"traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01","io.modelcontextprotocol/protocolVersion":"2025-11-25"}}`)

func BenchmarkNextMember(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(int64(len(params)))
	for b.Loop() {
		c, _ := OpenObject(params)
		for {
			_, v, ok := c.NextMember()
			if !ok {
				break
			}
			if v[0] == '{' {
				m, _ := OpenObject(v)
				for {
					if _, _, ok := m.NextMember(); !ok {
						break
					}
				}
			}
		}
	}
}

// BenchmarkCheckTraced is Check of a small traced tools/call request: short
// names, a traceparent.
func BenchmarkCheckTraced(b *testing.B) {
	msg := []byte(`{"jsonrpc":"2.0","id":1234,"method":"tools/call","params":` + string(params) + `}`)
	b.SetBytes(int64(len(msg)))
	for b.Loop() {
		if Check(msg, 64, func(k, v []byte) {}) != Valid {
			b.Fatal("invalid")
		}
	}
}
