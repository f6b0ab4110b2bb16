package runtime

import (
	"context"
	"encoding/json"
	"log/slog"
	"testing"
)

// FuzzProcessMessage feeds arbitrary bytes to the message core: it must never panic,
// and must answer with nothing or with a valid JSON-RPC response (or batch of them).
func FuzzProcessMessage(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","method":"echo","params":[1,2],"id":1}`,
		`{"jsonrpc":"2.0","method":"echo","params":{"a":"b"},"id":"x"}`,
		`{"jsonrpc":"2.0","method":"echo"}`,
		`{"jsonrpc":"2.0","method":"panic","id":null}`,
		`{"jsonrpc":"2.0","method":"bad","id":2}`,
		`{"jsonrpc":"2.0","result":1,"id":1}`,
		`{"jsonrpc":"2.0","method":1,"params":"bar"}`,
		`{"jsonrpc":"2.0","m\u0065thod":"echo","id":3}`,
		`[]`, `[1]`, `[{"jsonrpc":"2.0","method":"echo","id":1},{"jsonrpc":"2.0","method":"echo"}]`,
		`[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]`, `{"jsonrpc":"2.0","method":"x","id":{}}`,
		`{"jsonrpc": "2.0", "method": "foobar, "params": "bar", "baz]`, "\xff", ``, `null`,
	} {
		f.Add([]byte(s))
	}
	h := HandlerFunc(func(ctx context.Context, req *Request) (json.RawMessage, error) {
		switch req.Method {
		case "panic":
			panic("fuzz")
		case "bad":
			return json.RawMessage(`{not json`), nil
		}
		if req.Params == nil {
			return nil, nil
		}
		return req.Params, nil
	})
	s := &server{handler: h, maxDepth: 16, logger: slog.New(slog.DiscardHandler)}
	f.Fuzz(func(t *testing.T, msg []byte) {
		reply := s.process(context.Background(), msg, nil)
		if len(reply) == 0 {
			return
		}
		if !json.Valid(reply) {
			t.Fatalf("reply is not JSON: %s", reply)
		}
		var batch []json.RawMessage
		if json.Unmarshal(reply, &batch) != nil {
			batch = []json.RawMessage{reply}
		} else if len(batch) == 0 {
			t.Fatalf("empty batch reply to %q", msg)
		}
		for _, r := range batch {
			// A map keeps members whose value is null, unlike pointer fields.
			var resp map[string]json.RawMessage
			if err := json.Unmarshal(r, &resp); err != nil {
				t.Fatalf("reply %s: %v", r, err)
			}
			_, hasID := resp["id"]
			_, hasResult := resp["result"]
			errObj, hasError := resp["error"]
			if string(resp["jsonrpc"]) != `"2.0"` || !hasID || hasResult == hasError {
				t.Fatalf("not a JSON-RPC response: %s (to %q)", r, msg)
			}
			var e Error
			if hasError && (json.Unmarshal(errObj, &e) != nil || e.Message == "") {
				t.Fatalf("malformed error object: %s", r)
			}
		}
	})
}
