package mcp

import "context"

// CallTool calls the tool name through c with args and returns its
// structured result decoded as an R, or the zero R and the error (a tool
// result with isError set is an error). It is the body of a generated MCP
// client's methods whose result is a JSON object.
func CallTool[R any](ctx context.Context, c ToolCaller, name string, args any) (R, error) {
	var result R
	if err := c.CallTool(ctx, name, args, &result); err != nil {
		var zero R
		return zero, err
	}
	return result, nil
}

// CallToolWrapped is CallTool for a tool whose result is not a JSON object
// (a list, a string, a number), which the server sends wrapped as
// {"result": ...} (see WrapResult): it returns what is under "result".
func CallToolWrapped[R any](ctx context.Context, c ToolCaller, name string, args any) (R, error) {
	var wrapped struct {
		Result R `json:"result"`
	}
	if err := c.CallTool(ctx, name, args, &wrapped); err != nil {
		var zero R
		return zero, err
	}
	return wrapped.Result, nil
}
