package jsonrpcspec

// Example is one request example of section 7 of the JSON-RPC 2.0
// specification and the reply the specification shows for it.
type Example struct {
	Name    string
	Request string
	Reply   string // "" when the server must not answer at all; batch replies may come in any order
}

// Examples are the request examples of section 7 of the JSON-RPC 2.0
// specification, as it prints them. The runtime's wire tests and this
// package's tests of a generated dispatcher both check them.
var Examples = []Example{
	{"positional params", `{"jsonrpc": "2.0", "method": "subtract", "params": [42, 23], "id": 1}`,
		`{"jsonrpc": "2.0", "result": 19, "id": 1}`},
	{"positional params reversed", `{"jsonrpc": "2.0", "method": "subtract", "params": [23, 42], "id": 2}`,
		`{"jsonrpc": "2.0", "result": -19, "id": 2}`},
	{"named params", `{"jsonrpc": "2.0", "method": "subtract", "params": {"subtrahend": 23, "minuend": 42}, "id": 3}`,
		`{"jsonrpc": "2.0", "result": 19, "id": 3}`},
	{"named params reordered", `{"jsonrpc": "2.0", "method": "subtract", "params": {"minuend": 42, "subtrahend": 23}, "id": 4}`,
		`{"jsonrpc": "2.0", "result": 19, "id": 4}`},
	{"notification", `{"jsonrpc": "2.0", "method": "update", "params": [1,2,3,4,5]}`, ``},
	{"notification of unknown method", `{"jsonrpc": "2.0", "method": "foobar"}`, ``},
	{"unknown method", `{"jsonrpc": "2.0", "method": "foobar", "id": "1"}`,
		`{"jsonrpc": "2.0", "error": {"code": -32601, "message": "Method not found"}, "id": "1"}`},
	{"invalid JSON", `{"jsonrpc": "2.0", "method": "foobar, "params": "bar", "baz]`,
		`{"jsonrpc": "2.0", "error": {"code": -32700, "message": "Parse error"}, "id": null}`},
	{"invalid request object", `{"jsonrpc": "2.0", "method": 1, "params": "bar"}`,
		`{"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null}`},
	{"batch with invalid JSON", `[
  {"jsonrpc": "2.0", "method": "sum", "params": [1,2,4], "id": "1"},
  {"jsonrpc": "2.0", "method"
]`, `{"jsonrpc": "2.0", "error": {"code": -32700, "message": "Parse error"}, "id": null}`},
	{"empty array", `[]`,
		`{"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null}`},
	{"invalid batch of one", `[1]`,
		`[{"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null}]`},
	{"invalid batch", `[1,2,3]`, `[
  {"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null},
  {"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null},
  {"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null}
]`},
	{"mixed batch", `[
  {"jsonrpc": "2.0", "method": "sum", "params": [1,2,4], "id": "1"},
  {"jsonrpc": "2.0", "method": "notify_hello", "params": [7]},
  {"jsonrpc": "2.0", "method": "subtract", "params": [42,23], "id": "2"},
  {"foo": "boo"},
  {"jsonrpc": "2.0", "method": "foo.get", "params": {"name": "myself"}, "id": "5"},
  {"jsonrpc": "2.0", "method": "get_data", "id": "9"}
]`, `[
  {"jsonrpc": "2.0", "result": 7, "id": "1"},
  {"jsonrpc": "2.0", "result": 19, "id": "2"},
  {"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null},
  {"jsonrpc": "2.0", "error": {"code": -32601, "message": "Method not found"}, "id": "5"},
  {"jsonrpc": "2.0", "result": ["hello", 5], "id": "9"}
]`},
	{"all notifications", `[
  {"jsonrpc": "2.0", "method": "notify_sum", "params": [1,2,4]},
  {"jsonrpc": "2.0", "method": "notify_hello", "params": [7]}
]`, ``},
}
