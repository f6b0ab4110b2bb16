package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"

	"github.com/rpcgen/rpcgen/runtime/mcp/internal/wire"
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
//     that tells the model how many it did not get;
//   - a stream that fails after producing items answers with an error result
//     (isError) whose _meta holds, under MetaStreamItems, what it produced, in
//     the shape of the result above; CallToolStream yields those items and
//     then the error, as a JSON-RPC client gets the items before the error.
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
			// A stream that failed midway: its result carries the items
			// produced before the error, which come first, as over JSON-RPC.
			var te *ToolError
			if errors.As(err, &te) && te.Result != nil {
				if raw := wire.Member(te.Result.Meta, MetaStreamItems); raw != nil && json.Unmarshal(raw, &res) == nil {
					for _, v := range res.Items {
						if !yield(v, nil) {
							return
						}
					}
				}
			}
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
