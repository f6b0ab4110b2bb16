package runtime

import (
	"encoding/json"
	"errors"
	"strconv"
)

// ErrorDef declares an application error of a service: its code, its
// message and, as D, the type of its data. Declared once as an exported
// variable of the package that holds the service's interface,
//
//	// ErrDivisionByZero is what Divide fails with when b is 0.
//	var ErrDivisionByZero = runtime.DefineError[DivisionByZero](1001, "division by zero")
//
// it is what the implementation returns, ErrDivisionByZero.With(data), and
// what rpcgen documents for the methods that name it
// (//rpcgen:method errors=ErrDivisionByZero): the code, the message, the
// doc comment and the JSON Schema of D go into the OpenRPC document, the
// Markdown reference, the TypeScript client's error classes and the MCP
// tool descriptions. A caller tells it apart with errors.Is(err,
// ErrDivisionByZero), over JSON-RPC and MCP alike, and reads its data with
// DataOf. An error without data is a plain *Error from NewError, declared
// and named the same way.
type ErrorDef[D any] struct {
	Code    int64
	Message string
}

// DefineError declares an error with code, message and data of type D. The
// code and the message must be constants, which rpcgen reads from the
// source.
func DefineError[D any](code int64, message string) *ErrorDef[D] {
	return &ErrorDef[D]{Code: code, Message: message}
}

// With returns the error, with data as its data.
func (d *ErrorDef[D]) With(data D) *Error {
	return NewError(d.Code, d.Message).WithData(data)
}

// Error makes d an error, for errors.Is: "jsonrpc: <message> (code <code>)".
func (d *ErrorDef[D]) Error() string {
	return "jsonrpc: " + d.Message + " (code " + strconv.FormatInt(d.Code, 10) + ")"
}

// ErrorCode returns d's code: errors.Is(err, d) is true for an *Error with it.
func (d *ErrorDef[D]) ErrorCode() int64 { return d.Code }

// DataOf returns the data of err when it is (or wraps) this error: an
// *Error with d's code whose data decodes as a D. ok is false otherwise.
func (d *ErrorDef[D]) DataOf(err error) (data D, ok bool) {
	var e *Error
	if !errors.As(err, &e) || e == nil || e.Code != d.Code {
		return data, false
	}
	if len(e.Data) > 0 && json.Unmarshal(e.Data, &data) != nil {
		var zero D
		return zero, false
	}
	return data, true
}

// ErrorCode returns e's code, so that errors.Is(err, e) holds for any error
// with it (see Is).
func (e *Error) ErrorCode() int64 { return e.Code }

// Is reports whether target is an error of e's kind: an *Error or an
// *ErrorDef with e's code. JSON-RPC tells errors apart by code; the message
// and the data may differ from one occurrence to the next.
func (e *Error) Is(target error) bool {
	t, ok := target.(interface{ ErrorCode() int64 })
	return ok && t.ErrorCode() == e.Code
}
