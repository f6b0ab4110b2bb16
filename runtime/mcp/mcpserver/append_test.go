package mcpserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
	"github.com/rpcgen/rpcgen/runtime/rpcimpl"
)

type appendResult struct {
	Text  string `json:"text"`
	Items []int  `json:"items"`
}

// appendTools returns the same tool twice, as Handler only ("plain") and
// with an Append ("appended"), and one whose Append fails as its Handler
// does ("failing"); n sets the result's size.
func appendTools(n int, appended *int) []mcpserver.Tool {
	result := func(args json.RawMessage) appendResult {
		r := appendResult{Text: `quotes " and \ backslashes, <html> & ` + strings.Repeat("x", n)}
		for i := range n / 4 {
			r.Items = append(r.Items, i)
		}
		return r
	}
	plain := func(_ context.Context, args json.RawMessage) (json.RawMessage, error) {
		return rpcimpl.Result(result(args), nil)
	}
	add := func(_ context.Context, args json.RawMessage, dst []byte) (json.RawMessage, error) {
		*appended++
		return rpcimpl.AppendResult(dst, result(args), nil)
	}
	boom := errors.New("boom")
	failing := func(context.Context, json.RawMessage) (json.RawMessage, error) { return nil, boom }
	failingAppend := func(context.Context, json.RawMessage, []byte) (json.RawMessage, error) {
		*appended++
		return nil, boom
	}
	schema := json.RawMessage(`{"type":"object"}`)
	return []mcpserver.Tool{
		{Name: "plain", InputSchema: schema, OutputSchema: schema, Handler: plain, TrustResults: true},
		{Name: "appended", InputSchema: schema, OutputSchema: schema, Handler: plain, TrustResults: true, Append: add},
		{Name: "failing", InputSchema: schema, OutputSchema: schema, Handler: failing, TrustResults: true, Append: failingAppend},
	}
}

// TestToolAppend: a tool with an Append answers with the same bytes as
// through its Handler, in every revision, small and large; a failure is the
// same error result; and a reply stays as it was while later calls reuse the
// server's buffers.
func TestToolAppend(t *testing.T) {
	for _, n := range []int{10, 300 << 10} {
		var appended int
		srv := mcpserver.New(mcp.Implementation{Name: "t", Version: "1"}, nil)
		srv.AddTools(appendTools(n, &appended)...)
		for _, v := range []string{mcp.Version20250326, mcp.Version20250618, mcp.Version20251125, mcp.Version20260728} {
			want := callIn(t, srv, v, "plain")
			before := appended
			if got := callIn(t, srv, v, "appended"); got != want {
				t.Errorf("%d bytes, %s: Append's result differs from Handler's:\n%.300s\n%.300s", n, v, got, want)
			}
			if appended != before+1 {
				t.Errorf("%d bytes, %s: Append ran %d times, want once", n, v, appended-before)
			}
			got := callIn(t, srv, v, "failing")
			if !strings.Contains(got, `"isError":true`) || !strings.Contains(got, "boom") {
				t.Errorf("%s: failing Append: result %s, want the error result", v, got)
			}
		}

		// Replies held by the caller while the session answers more calls.
		ss := srv.NewSession()
		ctx := context.Background()
		ss.Handle(ctx, []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`), nil)
		var replies [][]byte
		var copies [][]byte
		for i := range 4 {
			r := ss.Handle(ctx, []byte(`{"jsonrpc":"2.0","id":`+string(rune('1'+i))+`,"method":"tools/call","params":{"name":"appended"}}`), nil)
			replies = append(replies, r)
			copies = append(copies, bytes.Clone(r))
		}
		for i := range replies {
			if !bytes.Equal(replies[i], copies[i]) {
				t.Fatalf("%d bytes: reply %d changed after later calls", n, i+1)
			}
			if !json.Valid(replies[i]) {
				t.Fatalf("%d bytes: reply %d is not JSON", n, i+1)
			}
		}
	}
}

// TestToolAppendMiddleware: with tool middleware, which sees and may replace
// a result, the server runs Handler, not Append.
func TestToolAppendMiddleware(t *testing.T) {
	var appended, seen int
	srv := mcpserver.New(mcp.Implementation{Name: "t", Version: "1"}, &mcpserver.Options{
		ToolMiddleware: []mcpserver.ToolMiddleware{func(next mcpserver.ToolCallHandler) mcpserver.ToolCallHandler {
			return func(ctx context.Context, c *mcpserver.ToolCall) (json.RawMessage, error) {
				seen++
				return next(ctx, c)
			}
		}},
	})
	srv.AddTools(appendTools(10, &appended)...)
	if got := callIn(t, srv, mcp.Version20251125, "appended"); !strings.Contains(got, `"structuredContent":{"text":`) {
		t.Errorf("result %s", got)
	}
	if appended != 0 || seen != 1 {
		t.Errorf("Append ran %d times and the middleware saw %d calls; want 0 and 1", appended, seen)
	}
}
