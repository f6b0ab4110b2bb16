package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/internal/wire"
)

// roundTrip ends the request the buffer holds (its _meta, with the progress
// token when not 0), sends it through the middleware and returns its reply.
// The buffer is released once the message is out.
func (c *Client) roundTrip(ctx context.Context, id int64, cb *clientBuf, token int64, onProgress func(mcp.ProgressNotification)) (clientReply, error) {
	if err := c.awaitSession(ctx); err != nil {
		cb.free()
		return clientReply{}, err
	}
	if c.chain != nil {
		return c.intercept(ctx, id, cb, token, onProgress)
	}
	cb.end(c.requestMeta(), token)
	return c.exchange(ctx, id, cb, onProgress)
}

// send ends the notification the buffer holds, sends it through the
// middleware and releases the buffer.
func (c *Client) send(ctx context.Context, cb *clientBuf) error {
	if err := c.awaitSession(ctx); err != nil {
		cb.free()
		return err
	}
	if c.chain != nil {
		_, err := c.intercept(ctx, 0, cb, 0, nil)
		return err
	}
	defer cb.free()
	cb.end(c.requestMeta(), 0)
	return c.t.send(ctx, cb.b.Bytes())
}

// exchange sends the complete request the buffer holds and returns its
// reply, releasing the buffer once the message is out.
func (c *Client) exchange(ctx context.Context, id int64, cb *clientBuf, onProgress func(mcp.ProgressNotification)) (clientReply, error) {
	r, err := c.t.roundTrip(ctx, id, cb.b.Bytes(), onProgress)
	cb.free()
	if err != nil {
		return r, err
	}
	if r.errObj != nil {
		return r, clientDecodeError(r.errObj)
	}
	return r, nil
}

// clientDecodeError turns a response's error member into a *runtime.Error.
func clientDecodeError(raw []byte) error {
	e := new(runtime.Error)
	if err := json.Unmarshal(raw, e); err != nil {
		return fmt.Errorf("mcp: malformed error object: %w", err)
	}
	return e
}

// call sends method with params (a value encoding as a JSON object, or nil)
// and decodes the result into result (when not nil).
func (c *Client) call(ctx context.Context, method string, params, result any) error {
	err := c.callOnce(ctx, method, params, result)
	if err == nil {
		return nil
	}
	return c.retried(ctx, method, "", err, func(ctx context.Context) error {
		return c.callOnce(ctx, method, params, result)
	})
}

// callOnce is one try of call.
func (c *Client) callOnce(ctx context.Context, method string, params, result any) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	id := c.nextID.Add(1)
	cb := clientGetBuf()
	cb.begin(id, method)
	if params != nil {
		if err := cb.members(params); err != nil {
			cb.free()
			return fmt.Errorf("mcp: encode params of %s: %w", method, err)
		}
	}
	r, err := c.roundTrip(ctx, id, cb, 0, nil)
	if err != nil {
		return err
	}
	if err := c.checkResultType(method, r.result); err != nil {
		return err
	}
	if result == nil {
		return nil
	}
	if err := unmarshalResult(r.result, result); err != nil {
		return fmt.Errorf("mcp: decode result of %s: %w", method, err)
	}
	return nil
}

// members appends the members of v, which must encode as a JSON object.
func (cb *clientBuf) members(v any) error {
	start := cb.b.Len()
	if err := cb.enc.Encode(v); err != nil {
		return err
	}
	b := cb.b.Bytes()
	obj := b[start : len(b)-1] // Encode ends the value with a newline
	if len(obj) < 2 || obj[0] != '{' {
		return errors.New("params must encode as a JSON object")
	}
	n := copy(b[start:], obj[1:len(obj)-1])
	cb.b.Truncate(start + n)
	return nil
}

// notify sends a notification with no params beyond the modern _meta.
func (c *Client) notify(ctx context.Context, method string) error {
	cb := clientGetBuf()
	cb.begin(0, method)
	return c.send(ctx, cb)
}

// checkResultType rejects a modern result that is not complete; a missing
// resultType counts as complete.
func (c *Client) checkResultType(method string, result []byte) error {
	if !c.Modern() {
		return nil
	}
	o, ok := runtime.ScanObject(result)
	if !ok {
		return fmt.Errorf("mcp: the result of %s is not an object", method)
	}
	for {
		key, val, ok := o.Next()
		if !ok {
			return nil
		}
		if string(key) == "resultType" {
			return resultTypeError(method, val)
		}
	}
}

// resultTypeError returns nil for the raw JSON string "complete" and an
// error for anything else.
func resultTypeError(method string, val []byte) error {
	if wire.StringIs(val, "complete") {
		return nil
	}
	var rt string
	if json.Unmarshal(val, &rt) != nil {
		rt = string(val)
	}
	return unsupportedResultType(method, rt)
}

// unsupportedResultType explains a resultType other than "complete".
func unsupportedResultType(method, rt string) error {
	if rt == "input_required" {
		return fmt.Errorf("mcp: %s: the server asks for input (resultType input_required) where the protocol allows none", method)
	}
	return fmt.Errorf("mcp: %s: unsupported resultType %q", method, rt)
}

// ListTools returns every tool the server offers, following nextCursor
// through all pages.
func (c *Client) ListTools(ctx context.Context) ([]mcp.ToolInfo, error) {
	tools, err := listAll[mcp.ToolInfo](ctx, c, mcp.MethodToolsList, "tools")
	if err == nil {
		c.hints.learn(tools) // for retries
	}
	return tools, err
}

// listAll returns the items of every page of the paginated list method,
// whose results hold them in member.
func listAll[T any](ctx context.Context, c *Client, method, member string) ([]T, error) {
	var items []T
	seen := map[string]bool{}
	cursor := ""
	for {
		var page map[string]json.RawMessage
		var err error
		if cursor != "" {
			err = c.call(ctx, method, &struct {
				Cursor string `json:"cursor"`
			}{cursor}, &page)
		} else {
			err = c.call(ctx, method, nil, &page)
		}
		if err != nil {
			return nil, err
		}
		var some []T
		if v := page[member]; !clientIsNull(v) {
			if err := json.Unmarshal(v, &some); err != nil {
				return nil, fmt.Errorf("mcp: decode result of %s: %w", method, err)
			}
		}
		items = append(items, some...)
		var next string
		if v := page["nextCursor"]; !clientIsNull(v) {
			if err := json.Unmarshal(v, &next); err != nil {
				return nil, fmt.Errorf("mcp: decode nextCursor of %s: %w", method, err)
			}
		}
		if next == "" {
			return items, nil
		}
		if seen[next] {
			return nil, fmt.Errorf("mcp: %s: the server repeated cursor %q", method, next)
		}
		seen[next] = true
		cursor = next
	}
}

// callTool sends tools/call, answering the server's requests for input in
// 2026-07-28, and returns the raw result.
func (c *Client) callTool(ctx context.Context, name string, args any, onProgress func(mcp.ProgressNotification)) ([]byte, error) {
	return c.callWithInput(ctx, mcp.MethodToolsCall, name, func(cb *clientBuf) error {
		cb.field("name")
		cb.str(name)
		if err := cb.arguments(args); err != nil {
			return fmt.Errorf("mcp: encode arguments of %s: %w", name, err)
		}
		return nil
	}, onProgress)
}

// CallTool calls the tool name with args (any value encoding as a JSON
// object, a json.RawMessage, or nil) and, when result is not nil, decodes the
// tool's structured result into it. Before 2025-06-18 there is no structured
// result, and the first text content block is decoded instead. A tool that
// reports failure (isError) yields a *ToolError; a protocol error (unknown
// tool, say) a *runtime.Error. If ctx ends first the server is told to stop
// (notifications/cancelled) and ctx.Err() is returned.
func (c *Client) CallTool(ctx context.Context, name string, args, result any) error {
	raw, err := c.callTool(ctx, name, args, nil)
	if err != nil {
		return err
	}
	return c.decodeToolResult(name, raw, result)
}

// decodeToolResult decodes the tools/call result raw of the tool name into
// result, as CallTool says.
func (c *Client) decodeToolResult(name string, raw []byte, result any) error {
	var structured, content []byte
	isError := false
	o, ok := runtime.ScanObject(raw)
	if !ok {
		return fmt.Errorf("mcp: the result of tools/call %s is not an object", name)
	}
	for {
		key, val, ok := o.Next()
		if !ok {
			break
		}
		switch {
		case string(key) == "structuredContent":
			structured = val
		case string(key) == "content":
			content = val
		case string(key) == "isError":
			isError = string(val) == "true"
		}
	}
	if o.Malformed() {
		return fmt.Errorf("mcp: the result of tools/call %s is malformed", name)
	}
	if isError {
		res := new(mcp.CallToolResult)
		if err := json.Unmarshal(raw, res); err != nil {
			return fmt.Errorf("mcp: decode result of tools/call %s: %w", name, err)
		}
		if res.IsNull() {
			if result != nil {
				return json.Unmarshal([]byte("null"), result)
			}
			return nil
		}
		return mcp.NewToolError(name, res)
	}
	if result == nil {
		return nil
	}
	if !clientIsNull(structured) {
		if err := unmarshalResult(structured, result); err != nil {
			return fmt.Errorf("mcp: decode structured result of %s: %w", name, err)
		}
		return nil
	}
	if c.ProtocolVersion() >= mcp.Version20250618 {
		return fmt.Errorf("mcp: tool %s returned no structured result", name)
	}
	return decodeTextResult(name, content, result)
}

// decodeTextResult decodes the first text content block as JSON, for servers
// older than structured results.
func decodeTextResult(name string, content []byte, result any) error {
	var blocks []mcp.Content
	if err := json.Unmarshal(content, &blocks); err != nil {
		return fmt.Errorf("mcp: decode content of %s: %w", name, err)
	}
	for _, b := range blocks {
		if b.Type == "text" {
			if err := json.Unmarshal([]byte(b.Text), result); err != nil {
				return fmt.Errorf("mcp: decode text result of %s: %w", name, err)
			}
			return nil
		}
	}
	return fmt.Errorf("mcp: tool %s returned no text content to decode", name)
}

// CallToolRaw calls a tool and returns its whole result, isError included
// (not turned into an error). With p.OnProgress set it asks for progress
// notifications and passes them on until the response arrives.
func (c *Client) CallToolRaw(ctx context.Context, p mcp.CallToolParams) (*mcp.CallToolResult, error) {
	raw, err := c.callTool(ctx, p.Name, p.Arguments, p.OnProgress)
	if err != nil {
		return nil, err
	}
	res := new(mcp.CallToolResult)
	if err := json.Unmarshal(raw, res); err != nil {
		return nil, fmt.Errorf("mcp: decode result of tools/call %s: %w", p.Name, err)
	}
	if res.ResultType != "" && res.ResultType != "complete" {
		return nil, unsupportedResultType(mcp.MethodToolsCall+" "+p.Name, res.ResultType)
	}
	return res, nil
}

// Ping checks that the server answers (legacy sessions only: 2026-07-28 has
// no ping).
func (c *Client) Ping(ctx context.Context) error {
	if c.Modern() {
		return fmt.Errorf("mcp: ping does not exist in protocol %s", c.ProtocolVersion())
	}
	return c.call(ctx, mcp.MethodPing, nil, nil)
}

// logLevels are the RFC 5424 severities MCP uses.
var logLevels = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

// SetLogLevel asks the server for log messages (delivered to
// Options.OnLog) at level and above. A legacy session sends
// logging/setLevel; a modern one sends the level with every later request.
func (c *Client) SetLogLevel(ctx context.Context, level string) error {
	valid := false
	for _, l := range logLevels {
		valid = valid || l == level
	}
	if !valid {
		return fmt.Errorf("mcp: unknown log level %q (want one of %s)", level, strings.Join(logLevels, ", "))
	}
	if !c.Modern() {
		err := c.call(ctx, mcp.MethodLoggingSetLevel, &struct {
			Level string `json:"level"`
		}{level}, nil)
		if err == nil {
			c.leveled(level) // for a new session
		}
		return err
	}
	c.metaMu.Lock()
	c.logLevel = level
	c.rebuildMeta()
	c.metaMu.Unlock()
	return nil
}

// clientIsNull reports whether the raw value v is absent or JSON null.
func clientIsNull(v []byte) bool { return len(v) == 0 || string(v) == "null" }

// resultDecoder is a result that decodes itself without reflection: a
// generated client's (rpcimpl.ResultOf), which reads the JSON as
// json.Unmarshal would.
type resultDecoder interface {
	DecodeResult(data []byte) error
}

// unmarshalResult decodes raw into result with its own decoder, when it has
// one, else with json.Unmarshal.
func unmarshalResult(raw []byte, result any) error {
	if rd, ok := result.(resultDecoder); ok {
		return rd.DecodeResult(raw)
	}
	return json.Unmarshal(raw, result)
}
