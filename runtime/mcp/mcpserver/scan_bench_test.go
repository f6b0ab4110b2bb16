package mcpserver

import "testing"

// BenchmarkParseParams measures slicing a tools/call's params, as every
// request does before it is routed.
func BenchmarkParseParams(b *testing.B) {
	raw := []byte(`{"name":"get_note","arguments":{"id":"n1"},"_meta":{"progressToken":7,"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}`)
	b.ReportAllocs()
	for b.Loop() {
		var p reqParams
		if !p.parse(raw) || p.name == nil || p.metaVersion == nil {
			b.Fatal("parse")
		}
	}
}
