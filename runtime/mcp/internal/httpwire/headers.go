package httpwire

import "github.com/rpcgen/rpcgen/runtime/mcp"

// Header names of the handler and the client transport, in the canonical
// form net/http keeps them in, so they can be set without canonicalizing.
const (
	HdrAccept          = "Accept"
	HdrContentType     = "Content-Type"
	HdrSessionID       = "Mcp-Session-Id"
	HdrProtocolVersion = "Mcp-Protocol-Version"
	HdrMethod          = "Mcp-Method"
	HdrName            = "Mcp-Name"
	HdrLastEventID     = "Last-Event-Id"
)

// Header values both sides send; net/http never modifies them.
var (
	ValJSON        = []string{"application/json"}
	ValEventStream = []string{"text/event-stream"}
)

// fixedValues holds the header value slices of the methods (the method
// table's, as it stands when the package starts) and versions the client
// sends, so they cost nothing per request (and String returns their
// strings without allocating). Read-only after init.
var fixedValues = func() map[string][]string {
	m := map[string][]string{}
	for _, row := range mcp.Methods() {
		m[row.Name] = row.HeaderValue()
	}
	for _, v := range mcp.LegacyVersions {
		m[v] = []string{v}
	}
	for _, v := range mcp.ModernVersions {
		m[v] = []string{v}
	}
	return m
}()

// Value returns a header value slice holding s, shared when s is a method
// or revision name.
func Value(s string) []string {
	if v, ok := fixedValues[s]; ok {
		return v
	}
	return []string{s}
}
