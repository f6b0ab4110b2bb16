package runtime

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/rpcgen/rpcgen/runtime/internal/jsonenc"
)

// Error is a JSON-RPC 2.0 error object. A handler returns one to choose the code, message
// and data of its error response; a Call that receives an error response returns one.
type Error struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// The error codes the JSON-RPC 2.0 specification reserves.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603
	// CodeServerError is what a plain Go error returned by a handler becomes.
	CodeServerError = -32000
)

// Error formats e as "jsonrpc: <message> (code <code>)"; the data stays out so log lines
// stay short and free of payloads.
func (e *Error) Error() string {
	return "jsonrpc: " + e.Message + " (code " + strconv.FormatInt(e.Code, 10) + ")"
}

// NewError returns an error with the given code and message and no data.
func NewError(code int64, message string) *Error {
	return &Error{Code: code, Message: message}
}

// WithData sets e's data to the JSON encoding of v and returns e. When v cannot be
// encoded the data stays empty: an error response must still go out.
func (e *Error) WithData(v any) *Error {
	data, err := json.Marshal(v)
	if err != nil {
		e.Data = nil
		return e
	}
	e.Data = data
	return e
}

// ErrMethodNotFound returns the standard "Method not found" error carrying the method
// name as its data, so a caller sees which name the peer did not know.
func ErrMethodNotFound(method string) *Error {
	return &Error{Code: CodeMethodNotFound, Message: "Method not found", Data: jsonenc.AppendString(nil, method)}
}

// InvalidParams returns a CodeInvalidParams error whose message is "invalid params: "
// followed by the formatted detail, worded so a caller (often a model) can fix its input.
func InvalidParams(format string, args ...any) *Error {
	return &Error{Code: CodeInvalidParams, Message: "invalid params: " + fmt.Sprintf(format, args...)}
}

// ErrNoResponse is what a Handler returns to send no response at all to a request, as
// when the peer cancelled it and the protocol says a cancelled request gets none. In a
// batch the request is left out of the reply. It may be wrapped.
var ErrNoResponse = errors.New("jsonrpc: no response")

// Errors the message processing answers with. They are shared and never mutated.
var (
	errParse          = &Error{Code: CodeParseError, Message: "Parse error"}
	errInvalidRequest = &Error{Code: CodeInvalidRequest, Message: "Invalid Request"}
	errInternal       = &Error{Code: CodeInternalError, Message: "Internal error"}
	errNoBatches      = &Error{Code: CodeInvalidRequest, Message: "Invalid Request", Data: json.RawMessage(`"batches are not supported"`)}
	errShuttingDown   = &Error{Code: CodeServerError, Message: "connection is shutting down"}
)

// MessageTooLarge returns the CodeInvalidRequest error that answers a message over the
// size limit of limit bytes, as a Conn and a Processor do (see ErrMessageTooLarge for
// the error a Framer returns).
func MessageTooLarge(limit int) *Error {
	return &Error{Code: CodeInvalidRequest, Message: "message exceeds the size limit of " + strconv.Itoa(limit) + " bytes"}
}

func errTooDeep(limit int) *Error {
	return &Error{Code: CodeInvalidRequest, Message: "message nesting depth exceeds the limit of " + strconv.Itoa(limit)}
}

// wireError maps a handler's error to the error object sent to the peer: a *Error
// anywhere in the chain is kept as is; anything else is a server error whose message is
// the error's text.
func wireError(err error) *Error {
	var e *Error
	if errors.As(err, &e) && e != nil {
		return e
	}
	return &Error{Code: CodeServerError, Message: err.Error()}
}
