package runtime

import (
	"encoding/json"
	"fmt"
)

// Response is one JSON-RPC response as a client receives it. Conn matches responses to
// calls itself; ParseResponse is for transports that receive them some other way, such
// as in the body of an HTTP reply.
type Response struct {
	// ID is the id of the request answered, as its raw JSON text: compare it with
	// Int64ID or StringID. A server that could not read the request's id answers with
	// null, whose ID has the String "null".
	ID ID
	// Result is the raw result of a successful call; nil in an error response.
	Result json.RawMessage

	errObj []byte // the raw error member; nil in a success response
}

// ParseResponse parses data as one response object: valid JSON, an object, no method
// member, and a result or an error member. The Response shares data's memory.
func ParseResponse(data []byte) (Response, error) {
	var m message
	if !json.Valid(data) || !m.parse(data) || !m.isResponse() {
		return Response{}, fmt.Errorf("malformed response %.200q", data)
	}
	r := Response{Result: m.result, errObj: m.errObj}
	if m.id != nil {
		r.ID = makeID(m.id)
	}
	return r, nil
}

// Err returns the error of an error response, a *Error (or an error saying the error
// member is not a valid error object), and nil for a success response.
func (r *Response) Err() error {
	if r.errObj == nil {
		return nil
	}
	return decodeError(r.errObj)
}

// Decode returns r.Err() for an error response; otherwise it decodes r.Result into
// result, unless result is nil. method names the call in a decoding error. This is what
// Conn.Call does with a response, so a transport built on ParseResponse reports the same
// errors.
func (r *Response) Decode(method string, result any) error {
	if r.errObj != nil {
		return decodeError(r.errObj)
	}
	if result == nil {
		return nil
	}
	if rd, ok := result.(resultDecoder); ok {
		if err := rd.DecodeResult(r.Result); err != nil {
			return fmt.Errorf("decode result of %s: %w", method, err)
		}
		return nil
	}
	if err := json.Unmarshal(r.Result, result); err != nil {
		return fmt.Errorf("decode result of %s: %w", method, err)
	}
	return nil
}

// resultDecoder is a result that decodes itself without reflection: a
// generated client's (rpcimpl.ResultOf), which reads the JSON as
// json.Unmarshal would.
type resultDecoder interface {
	DecodeResult(data []byte) error
}

// decodeError turns a response's error member into a *Error.
func decodeError(raw []byte) error {
	e := new(Error)
	if err := json.Unmarshal(raw, e); err != nil {
		return fmt.Errorf("jsonrpc: malformed error object: %w", err)
	}
	return e
}
