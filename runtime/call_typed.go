package runtime

import "context"

// Call calls method over c with params and returns the result decoded as an
// R, or the zero R and the error:
//
//	note, err := runtime.Call[notes.Note](ctx, conn, "notes.getNote", map[string]any{"id": id})
//
// A generated client's methods are such calls, with the method's constant
// and its params struct.
func Call[R any](ctx context.Context, c Caller, method string, params any) (R, error) {
	var result R
	if err := c.Call(ctx, method, params, &result); err != nil {
		var zero R
		return zero, err
	}
	return result, nil
}
