package runtime_test

import (
	"slices"
	"testing"

	"github.com/rpcgen/rpcgen/internal/jsonrpcspec"
	"github.com/rpcgen/rpcgen/internal/rpctest"
	"github.com/rpcgen/rpcgen/runtime"
)

// specExamples are section 7's examples plus two cases section 4 requires.
var specExamples = append(slices.Clone(jsonrpcspec.Examples),
	// A null id is a request, not a notification.
	jsonrpcspec.Example{Name: "null id", Request: `{"jsonrpc": "2.0", "method": "subtract", "params": [1, 1], "id": null}`,
		Reply: `{"jsonrpc": "2.0", "result": 0, "id": null}`},
	jsonrpcspec.Example{Name: "unknown method data", Request: `{"jsonrpc":"2.0","method":"nope","id":7}`,
		Reply: `{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found","data":"nope"},"id":7}`},
)

func TestSpecExamples(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			rpctest.CheckLeaks(t)
			f := tr.dial(t, runtime.Options{Handler: specHandler})
			for _, ex := range specExamples {
				in := ex.Request
				if tr.oneLine {
					in = flatten(in)
				}
				got := roundTrip(t, f, in, ex.Reply == "")
				if ex.Reply != "" && !rpctest.SameJSON(t, got, ex.Reply) {
					t.Errorf("%s:\n got %s\nwant %s", ex.Name, got, ex.Reply)
				}
			}
			f.Close()
		})
	}
}
