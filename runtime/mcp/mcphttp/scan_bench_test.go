package mcphttp

import "testing"

// BenchmarkParseBody measures slicing the members routing reads out of a
// POSTed tools/call.
func BenchmarkParseBody(b *testing.B) {
	body := []byte(`{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"get_note","arguments":{"id":"n1"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`)
	b.ReportAllocs()
	for b.Loop() {
		var env envelope
		if env.parseBody(body) != bodyMessage || env.Name == nil || env.MetaVersion == nil {
			b.Fatal("parse")
		}
	}
}
