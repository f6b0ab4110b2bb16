package mcpserver_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"strconv"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
)

// countTool streams {"n": i} for i below the "n" argument; its loop signals
// on stopped when it ends.
func countTool(stopped chan<- int) mcpserver.Tool {
	serve := func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
		var p struct{ N int }
		if err := json.Unmarshal(args, &p); err != nil {
			return nil, runtime.InvalidParams("%v", err)
		}
		var seq iter.Seq2[map[string]int, error] = func(yield func(map[string]int, error) bool) {
			i := 0
			defer func() { stopped <- i }()
			for ; i < p.N; i++ {
				if !yield(map[string]int{"n": i}, nil) {
					return
				}
			}
		}
		return runtime.ServeStream(ctx, seq)
	}
	return mcpserver.Tool{Name: "count", InputSchema: json.RawMessage(`{"type":"object"}`), Handler: mcpserver.StreamTool(serve)}
}

func streamClient(t *testing.T, stopped chan int) *mcpclient.Client {
	srv := mcpserver.New(mcp.Implementation{Name: "s", Version: "1"}, nil)
	srv.AddTools(countTool(stopped))
	c, err := mcpclient.ConnectTransport(context.Background(), srv.InProcess(), mcpclient.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// TestStreamToolProgress calls a stream tool asking for progress: each item
// comes as a notification whose message is its JSON and whose _meta holds it,
// and the result holds them all.
func TestStreamToolProgress(t *testing.T) {
	stopped := make(chan int, 4)
	c := streamClient(t, stopped)
	var notes []mcp.ProgressNotification
	res, err := c.CallToolRaw(context.Background(), mcp.CallToolParams{Name: "count", Arguments: map[string]int{"n": 3},
		OnProgress: func(p mcp.ProgressNotification) { notes = append(notes, p) }})
	if err != nil {
		t.Fatal(err)
	}
	if len(notes) != 3 {
		t.Fatalf("%d progress notifications, want 3", len(notes))
	}
	for i, p := range notes {
		item := fmt.Sprintf(`{"n":%d}`, i)
		if p.Progress != float64(i+1) || p.Message != item || string(p.Meta) != `{"`+mcp.StreamItemMeta+`":`+item+`}` {
			t.Errorf("notification %d: %+v (meta %s)", i, p, p.Meta)
		}
	}
	if got := string(res.StructuredContent); got != `{"count":3,"items":[{"n":0},{"n":1},{"n":2}],"truncated":false}` {
		t.Fatalf("result %s", got)
	}
	<-stopped
}

// TestStreamToolTruncated streams more than a result holds: the result keeps
// the first items and says how many there were; CallToolStream yields those
// and then an error saying so.
func TestStreamToolTruncated(t *testing.T) {
	stopped := make(chan int, 4)
	c := streamClient(t, stopped)
	n := 0
	var last error
	for v, err := range mcp.CallToolStream[struct{ N int }](context.Background(), c, "count", map[string]int{"n": 250}) {
		if err != nil {
			last = err
			break
		}
		if v.N != n {
			t.Fatalf("item %d is %d", n, v.N)
		}
		n++
	}
	if n != mcp.StreamResultItems || last == nil || !strings.Contains(last.Error(), "100 of 250 items") {
		t.Fatalf("%d items, then %v", n, last)
	}
	if got := <-stopped; got != 250 {
		t.Fatalf("the tool's loop ran %d times", got)
	}
}

// TestStreamToolCancelled cancels a stream tool mid-way: its loop stops.
func TestStreamToolCancelled(t *testing.T) {
	stopped := make(chan int, 4)
	c := streamClient(t, stopped)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, err := c.CallToolRaw(ctx, mcp.CallToolParams{Name: "count", Arguments: map[string]int{"n": 1 << 30},
		OnProgress: func(p mcp.ProgressNotification) {
			if p.Progress == 10 {
				cancel()
			}
		}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled call: %v", err)
	}
	if got := <-stopped; got >= 1<<30 {
		t.Fatalf("the tool's loop ran to the end")
	}
}

// failTool streams {"n": 0}, {"n": 1}, {"n": 2} and then fails with a
// *runtime.Error.
func failTool() mcpserver.Tool {
	serve := func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
		var seq iter.Seq2[map[string]int, error] = func(yield func(map[string]int, error) bool) {
			for i := range 3 {
				if !yield(map[string]int{"n": i}, nil) {
					return
				}
			}
			yield(nil, &runtime.Error{Code: 4201, Message: "halted", Data: json.RawMessage(`{"at":3}`)})
		}
		return runtime.ServeStream(ctx, seq)
	}
	return mcpserver.Tool{Name: "fail", InputSchema: json.RawMessage(`{"type":"object"}`), Handler: mcpserver.StreamTool(serve)}
}

// TestStreamFailedMidwayWire: a stream tool that fails after three items
// sends each as progress before its error result (when the call asked for
// progress), and the error result holds the three items under
// MetaStreamItems beside the error, in both eras and on every driver. Before,
// the error result held the error alone.
func TestStreamFailedMidwayWire(t *testing.T) {
	const (
		items   = `{"count":3,"items":[{"n":0},{"n":1},{"n":2}],"truncated":false}`
		errMeta = `"io.github.rpcgen/error":{"code":4201,"message":"halted","data":{"at":3}},"io.github.rpcgen/streamItems":` + items
		errText = `{"content":[{"type":"text","text":"halted"}],"isError":true`
	)
	progress := func(message bool) []string {
		var out []string
		for i := range 3 {
			item := fmt.Sprintf(`{"n":%d}`, i)
			p := fmt.Sprintf(`{"progressToken":"p","progress":%d`, i+1)
			if message {
				p += `,"message":` + strconv.Quote(item)
			}
			out = append(out, note("notifications/progress", p+`,"_meta":{"`+mcp.StreamItemMeta+`":`+item+`}}`))
		}
		return out
	}
	for _, dr := range drivers {
		for _, version := range []string{"2024-11-05", "2025-11-25", "2026-07-28"} {
			t.Run(version+"/"+dr.name, func(t *testing.T) {
				srv := mcpserver.New(mcp.Implementation{Name: "s", Version: "1"}, nil)
				srv.AddTools(failTool())
				d := dr.new(t, srv)
				var withProgress, without, wantResult string
				if version == "2026-07-28" {
					meta := `"_meta":{"progressToken":"p","io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
					withProgress = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"fail",` + meta + `}}`
					without = modernReq("3", "tools/call", `"name":"fail",`)
					wantResult = errText + `,"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"s","version":"1"},` + errMeta + `}}`
				} else {
					expect(t, d, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"`+version+`","capabilities":{},"clientInfo":{"name":"test","version":"0"}}}`,
						res("1", `{"protocolVersion":"`+version+`","capabilities":{"tools":{"listChanged":true},"logging":{}},"serverInfo":{"name":"s","version":"1"}}`))
					expect(t, d, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
					withProgress = call("2", `{"name":"fail","_meta":{"progressToken":"p"}}`)
					without = call("3", `{"name":"fail"}`)
					wantResult = errText + `,"_meta":{` + errMeta + `}}`
				}
				expect(t, d, withProgress, append(progress(version != "2024-11-05"), res("2", wantResult))...)
				expect(t, d, without, res("3", wantResult))
				d.finish(t)
			})
		}
	}
}
