package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"strconv"
	"unicode/utf8"

	"github.com/rpcgen/rpcgen/runtime"
)

// A stream method (one returning iter.Seq2[T, error]) is a tool too. MCP has no
// streamed results, and a host shows a model only the final result, so:
//
//   - each item goes out at once as a progress notification, when the call
//     asked for progress (a progressToken): "progress" counts the items, the
//     "message" is the item's JSON (cut at StreamMessageBytes), which is what a
//     host displays while the tool runs, and "_meta" holds the item itself
//     under StreamItemMeta, for clients that read it;
//   - the tool's result is {"count": N, "items": [...], "truncated": false}: the
//     items, up to StreamResultItems of them and StreamResultBytes of JSON. A
//     longer stream keeps its first items, sets "truncated", and adds a "note"
//     that tells the model how many it did not get.
//
// Progress notifications are written as the transport takes them, so a client
// that reads slowly slows the tool's loop.
const (
	// StreamResultItems bounds the items a stream tool's result holds.
	StreamResultItems = 100
	// StreamResultBytes bounds the JSON of the items a stream tool's result
	// holds.
	StreamResultBytes = 32 << 10
	// StreamMessageBytes bounds the text of a stream item's progress message.
	StreamMessageBytes = 1 << 10
	// StreamItemMeta is the _meta key of a progress notification that holds
	// the stream item it reports.
	StreamItemMeta = "dev.rpcgen/streamItem"
)

// StreamTool adapts the handler of a stream method, which serves its items
// with runtime.ServeStream, to a tool: items go out as progress notifications
// and the result holds them, as described above.
func StreamTool(h ToolHandler) ToolHandler {
	return func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
		ts := &toolStream{items: []byte{'['}}
		if _, err := h(runtime.WithStreamSink(ctx, ts), args); err != nil {
			if ts.count > 0 {
				return nil, fmt.Errorf("the stream failed after %d items: %w", ts.count, err)
			}
			return nil, err
		}
		return ts.result(), nil
	}
}

// toolStream is a stream tool's sink: it reports each item and keeps the first.
type toolStream struct {
	count     int
	kept      int
	items     []byte // the JSON array of the kept items, without its ']'
	truncated bool
}

func (ts *toolStream) Item(ctx context.Context, _ runtime.ID, item json.RawMessage) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	ts.count++
	if !ts.truncated && ts.kept < StreamResultItems && len(ts.items)+len(item) < StreamResultBytes {
		if ts.kept > 0 {
			ts.items = append(ts.items, ',')
		}
		ts.items = append(ts.items, item...)
		ts.kept++
	} else {
		ts.truncated = true
	}
	streamProgress(ctx, ts.count, item)
	return ctx.Err()
}

func (ts *toolStream) result() json.RawMessage {
	b := append([]byte(`{"count":`), strconv.Itoa(ts.count)...)
	b = append(b, `,"items":`...)
	b = append(b, ts.items...)
	b = append(b, `],"truncated":`...)
	b = strconv.AppendBool(b, ts.truncated)
	if ts.truncated {
		b = append(b, `,"note":`...)
		note := fmt.Sprintf("the tool produced %d items; this result holds the first %d, and the client saw every item as it came", ts.count, ts.kept)
		b = runtime.AppendJSONString(b, note)
	}
	return append(b, '}')
}

// streamProgress sends the progress notification of item n of a stream tool.
func streamProgress(ctx context.Context, n int, item json.RawMessage) {
	cc := callFrom(ctx)
	if cc == nil || cc.token == nil {
		return
	}
	cc.mu.Lock()
	defer cc.mu.Unlock()
	if !cc.live() {
		return
	}
	cc.sent, cc.progress = true, float64(n)
	b := make([]byte, 0, 96+2*len(item))
	b = append(b, `{"progressToken":`...)
	b = append(b, cc.token...)
	b = append(b, `,"progress":`...)
	b = strconv.AppendInt(b, int64(n), 10)
	if cc.v.annotations() {
		b = append(b, `,"message":`...)
		b = runtime.AppendJSONString(b, cut(item, StreamMessageBytes))
	}
	b = append(b, `,"_meta":{"`+StreamItemMeta+`":`...)
	b = append(b, item...)
	cc.send(NotificationProgress, append(b, "}}"...))
}

// cut returns b, or its first max bytes (whole UTF-8 sequences) and "…".
func cut(b []byte, max int) []byte {
	if len(b) <= max {
		return b
	}
	i := max
	for i > 0 && !utf8.RuneStart(b[i]) {
		i--
	}
	return append(b[:i:i], "…"...)
}

// CallToolStream calls a stream tool and yields the items of its result (see
// StreamTool): the body of a generated MCP client's stream methods. A result
// the server truncated ends with an error saying how many items it left out.
func CallToolStream[T any](ctx context.Context, c ToolCaller, name string, args any) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var res struct {
			Count     int    `json:"count"`
			Items     []T    `json:"items"`
			Truncated bool   `json:"truncated"`
			Note      string `json:"note"`
		}
		var zero T
		if err := c.CallTool(ctx, name, args, &res); err != nil {
			yield(zero, typedError(err))
			return
		}
		for _, v := range res.Items {
			if !yield(v, nil) {
				return
			}
		}
		if res.Truncated {
			yield(zero, fmt.Errorf("mcp: tool %s: %d of %d items: %s", name, len(res.Items), res.Count, res.Note))
		}
	}
}
