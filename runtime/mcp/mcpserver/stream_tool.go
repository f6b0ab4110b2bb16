package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/internal/jsonenc"
	"github.com/rpcgen/rpcgen/runtime/mcp"
)

// StreamTool adapts the handler of a stream method, which serves its items
// with runtime.ServeStream, to a tool: items go out as progress notifications
// and the result holds them, as described above.
func StreamTool(h ToolHandler) ToolHandler {
	return func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
		ts := &toolStream{items: []byte{'['}}
		if _, err := h(runtime.WithStreamSink(ctx, ts), args); err != nil {
			if ts.count > 0 {
				return nil, &streamFailure{err: fmt.Errorf("the stream failed after %d items: %w", ts.count, err), items: ts.result()}
			}
			return nil, err
		}
		return ts.result(), nil
	}
}

// streamFailure is the error of a stream tool that failed after producing
// items: the error result carries them under mcp.MetaStreamItems, so that a
// client gets what the tool produced before its error, as a JSON-RPC client
// gets the items before the error response.
type streamFailure struct {
	err   error
	items json.RawMessage // the result the tool would have returned: count, items, truncated
}

func (f *streamFailure) Error() string { return f.err.Error() }
func (f *streamFailure) Unwrap() error { return f.err }

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
	if !ts.truncated && ts.kept < mcp.StreamResultItems && len(ts.items)+len(item) < mcp.StreamResultBytes {
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
		b = jsonenc.AppendString(b, note)
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
		b = jsonenc.AppendString(b, cut(item, mcp.StreamMessageBytes))
	}
	b = append(b, `,"_meta":{"`+mcp.StreamItemMeta+`":`...)
	b = append(b, item...)
	cc.send(mcp.NotificationProgress, append(b, "}}"...))
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
