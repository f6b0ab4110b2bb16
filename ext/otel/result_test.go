package otel

import (
	"encoding/json"
	"testing"

	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
)

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
