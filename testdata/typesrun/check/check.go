// Package check round-trips values through the code rpcgen generates for
// the type corpus (generator/typecorpus_test.go): over JSON-RPC (an
// in-memory pipe) and MCP (an in-process session), raw and through the
// typed clients, and compares every answer with what encoding/json writes
// for the same value. It records what went over the wire, with the tools'
// schemas, in wire_<service>.json, which the generator's test validates
// against the schemas with a JSON Schema validator and turns into
// TypeScript checks.
package check

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"strconv"
	"sync"
	"testing"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
)

// Harness serves one service over JSON-RPC and MCP, in process.
type Harness struct {
	t *testing.T
	// Conn calls the service over JSON-RPC.
	Conn *runtime.Conn
	// MCP calls the service's tools over MCP.
	MCP   *mcpclient.Client
	tools map[string]mcp.ToolInfo

	mu   sync.Mutex
	wire []Record
}

// Record is one call as it went over the wire, for the generator's test.
type Record struct {
	Service string `json:"service"` // the Go interface
	Method  string `json:"method"`  // the JSON-RPC method
	Go      string `json:"go"`      // the Go method
	Tool    string `json:"tool"`    // the MCP tool
	// Params is the params object; Args the params one by one, in order
	// (one element, the object, for a struct param).
	Params json.RawMessage   `json:"params"`
	Args   []json.RawMessage `json:"args"`
	Result json.RawMessage   `json:"result"`
	// Input and Output are the tool's schemas as the server lists them;
	// Wrapped says that the output schema wraps the result as
	// {"result": ...}.
	Input   json.RawMessage `json:"input"`
	Output  json.RawMessage `json:"output,omitempty"`
	Wrapped bool            `json:"wrapped"`
}

// Serve serves handler over an in-memory JSON-RPC pipe and tools over an
// in-process MCP session of the newest revision, and records the calls of
// the test in wire_<service>.json when it ends.
func Serve(t *testing.T, service string, handler runtime.Handler, tools []mcpserver.Tool) *Harness {
	t.Helper()
	a, b := runtime.Pipe()
	server := runtime.NewConn(a, runtime.Options{Handler: handler})
	client := runtime.NewConn(b, runtime.Options{})
	srv := mcpserver.New(mcp.Implementation{Name: service, Version: "1"}, nil)
	srv.AddTools(tools...)
	mc, err := mcpclient.ConnectTransport(context.Background(), srv.InProcess(), mcpclient.Options{})
	if err != nil {
		t.Fatal(err)
	}
	h := &Harness{t: t, Conn: client, MCP: mc, tools: map[string]mcp.ToolInfo{}}
	list, err := mc.ListTools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, ti := range list {
		h.tools[ti.Name] = ti
	}
	t.Cleanup(func() {
		mc.Close()
		client.Close()
		server.Close()
		h.save(service)
	})
	return h
}

// Param is one param of a call: its key and value (Key is "" for the one
// struct param, which is the params object itself).
type Param struct {
	Key   string
	Value any
}

// Case is one call of a method that returns what it is given.
type Case[I any] struct {
	Method, Tool, Go string
	Params           []Param
	// Want is what the method returns.
	Want any
	// Call calls the method through a typed client.
	Call func(c I) (any, error)
}

// Run makes the call c over JSON-RPC, by name and by position, and over
// MCP, raw and through each typed client, and checks that each answer is
// what encoding/json writes for c.Want.
func Run[I any](h *Harness, clients []I, c Case[I]) {
	t := h.t
	t.Helper()
	ctx := context.Background()
	want := reencode(t, c.Want)
	args := make([]json.RawMessage, len(c.Params))
	var params []byte
	if len(c.Params) == 1 && c.Params[0].Key == "" {
		args[0] = marshal(t, c.Params[0].Value)
		params = args[0]
	} else {
		params = []byte("{")
		for i, p := range c.Params {
			args[i] = marshal(t, p.Value)
			if i > 0 {
				params = append(params, ',')
			}
			params = append(strconv.AppendQuote(params, p.Key), ':')
			params = append(params, args[i]...)
		}
		params = append(params, '}')
	}
	label := c.Go + " " + string(params)

	var raw json.RawMessage
	if err := h.Conn.Call(ctx, c.Method, json.RawMessage(params), &raw); err != nil {
		t.Errorf("%s: JSON-RPC by name: %v", label, err)
	} else if !SameJSON(raw, want) {
		t.Errorf("%s: JSON-RPC by name answered %s, encoding/json writes %s", label, raw, want)
	}
	byPosition := []byte("[")
	for i, a := range args {
		if i > 0 {
			byPosition = append(byPosition, ',')
		}
		byPosition = append(byPosition, a...)
	}
	byPosition = append(byPosition, ']')
	raw = nil
	if err := h.Conn.Call(ctx, c.Method, json.RawMessage(byPosition), &raw); err != nil {
		t.Errorf("%s: JSON-RPC by position %s: %v", label, byPosition, err)
	} else if !SameJSON(raw, want) {
		t.Errorf("%s: JSON-RPC by position answered %s, encoding/json writes %s", label, raw, want)
	}

	tool, ok := h.tools[c.Tool]
	if !ok {
		t.Fatalf("%s: the MCP server lists no tool %q", label, c.Tool)
	}
	wrapped := isWrapper(tool.OutputSchema)
	res, err := h.MCP.CallToolRaw(ctx, mcp.CallToolParams{Name: c.Tool, Arguments: json.RawMessage(params)})
	switch {
	case err != nil:
		t.Errorf("%s: tools/call: %v", label, err)
	case string(want) == "null" && !wrapped:
		// A nil object where the output schema wants one: an error result
		// marked as no result (docs/mapping.md), which the typed client
		// turns back into nil.
		var meta map[string]json.RawMessage
		_ = json.Unmarshal(res.Meta, &meta)
		if !res.IsError || string(meta[mcp.MetaNull]) != "true" {
			t.Errorf("%s: tools/call of a nil object result: %+v, want an error result with %s", label, res, mcp.MetaNull)
		}
	case res.IsError:
		t.Errorf("%s: tools/call failed: %+v", label, res.Content)
	default:
		structured := res.StructuredContent
		if wrapped {
			var w struct {
				Result json.RawMessage `json:"result"`
			}
			if err := json.Unmarshal(structured, &w); err != nil {
				t.Errorf("%s: tools/call: structured content %s: %v", label, structured, err)
			}
			structured = w.Result
		}
		if !SameJSON(structured, want) {
			t.Errorf("%s: tools/call answered %s, encoding/json writes %s", label, structured, want)
		}
		if len(res.Content) != 1 || !SameJSON([]byte(res.Content[0].Text), res.StructuredContent) {
			t.Errorf("%s: tools/call: the text content %+v is not the structured content %s", label, res.Content, res.StructuredContent)
		}
	}

	for i, client := range clients {
		got, err := c.Call(client)
		if err != nil {
			t.Errorf("%s: typed client %d (%T): %v", label, i, client, err)
			continue
		}
		if b := marshal(t, got); !SameJSON(b, want) {
			t.Errorf("%s: typed client %d (%T) returned %s, encoding/json writes %s", label, i, client, b, want)
		}
	}

	h.mu.Lock()
	h.wire = append(h.wire, Record{Method: c.Method, Go: c.Go, Tool: c.Tool, Params: params, Args: args, Result: want,
		Input: tool.InputSchema, Output: tool.OutputSchema, Wrapped: wrapped})
	h.mu.Unlock()
}

// Fail calls the method with params (JSON) over JSON-RPC and MCP and checks
// that both refuse them as invalid params with the message want.
func Fail(h *Harness, method, tool, params, want string) {
	t := h.t
	t.Helper()
	err := h.Conn.Call(context.Background(), method, json.RawMessage(params), nil)
	var re *runtime.Error
	if !errors.As(err, &re) || re.Code != runtime.CodeInvalidParams || re.Message != want {
		t.Errorf("%s %s over JSON-RPC: got %v, want invalid params %q", method, params, err, want)
	}
	res, err := h.MCP.CallToolRaw(context.Background(), mcp.CallToolParams{Name: tool, Arguments: json.RawMessage(params)})
	if err != nil || !res.IsError || len(res.Content) == 0 || res.Content[0].Text != want {
		t.Errorf("%s %s over MCP: got %+v, %v, want a tool error %q", tool, params, res, err, want)
	}
}

// isWrapper reports whether the output schema is rpcgen's wrapper of a
// result that is not an object: {"result": R}, nothing else.
func isWrapper(schema json.RawMessage) bool {
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	if json.Unmarshal(schema, &s) != nil {
		return false
	}
	_, ok := s.Properties["result"]
	return ok && len(s.Properties) == 1 && len(s.Required) == 1
}

// reencode is what encoding/json writes for v (a pointer) after reading
// back what it wrote for it: the answer of an echo that decodes and
// encodes with encoding/json. It differs from v's own encoding where
// encoding/json's decoding loses something (a pointer to a nil slice reads
// back as a nil pointer).
func reencode(t *testing.T, v any) []byte {
	t.Helper()
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer {
		t.Fatalf("want %T: the corpus passes values by pointer", v)
	}
	if rv.IsNil() {
		return []byte("null")
	}
	back := reflect.New(rv.Type().Elem())
	if err := json.Unmarshal(marshal(t, v), back.Interface()); err != nil {
		t.Fatalf("encoding/json cannot read back what it wrote for %#v: %v", v, err)
	}
	return marshal(t, back.Interface())
}

func marshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("encoding/json cannot encode %#v: %v", v, err)
	}
	return b
}

// SameJSON reports whether a and b hold the same JSON value, numbers
// written alike (encoding/json's text of a number is what is compared).
func SameJSON(a, b []byte) bool {
	va, erra := decode(a)
	vb, errb := decode(b)
	return erra == nil && errb == nil && reflect.DeepEqual(va, vb)
}

func decode(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	err := d.Decode(&v)
	return v, err
}

// save writes the calls recorded to wire_<service>.json.
func (h *Harness) save(service string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for i := range h.wire {
		h.wire[i].Service = service
	}
	b, err := json.MarshalIndent(h.wire, "", "\t")
	if err != nil {
		h.t.Error(err)
		return
	}
	if err := os.WriteFile("wire_"+service+".json", b, 0o644); err != nil {
		h.t.Error(err)
	}
}
