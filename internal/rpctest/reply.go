package rpctest

import (
	"encoding/json"
	"fmt"
)

// CheckReply reports what is wrong with msg as a server's reply: it must be a
// JSON-RPC 2.0 response (jsonrpc "2.0", an id, a result or an error with an
// integer code and a string message, not both) or a non-empty array of them.
// The fuzz targets of the transports check every message a server sends with it.
func CheckReply(msg []byte) error {
	if !json.Valid(msg) {
		return fmt.Errorf("not JSON: %.200q", msg)
	}
	var batch []json.RawMessage
	if json.Unmarshal(msg, &batch) == nil {
		if len(batch) == 0 {
			return fmt.Errorf("an empty batch reply")
		}
		for _, r := range batch {
			if err := checkResponse(r); err != nil {
				return fmt.Errorf("in a batch: %w", err)
			}
		}
		return nil
	}
	return checkResponse(msg)
}

func checkResponse(msg []byte) error {
	var r map[string]json.RawMessage
	if err := json.Unmarshal(msg, &r); err != nil {
		return fmt.Errorf("not an object: %.200q", msg)
	}
	if string(r["jsonrpc"]) != `"2.0"` {
		return fmt.Errorf("jsonrpc is not \"2.0\": %.200q", msg)
	}
	id, ok := r["id"]
	if !ok {
		return fmt.Errorf("no id: %.200q", msg)
	}
	switch id[0] {
	case '"', 'n', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
	default:
		return fmt.Errorf("the id is not a string, number or null: %.200q", msg)
	}
	_, hasResult := r["result"]
	e, hasError := r["error"]
	if hasResult == hasError {
		return fmt.Errorf("want a result or an error, not both or neither: %.200q", msg)
	}
	if hasError {
		var eo struct {
			Code    *json.Number `json:"code"`
			Message *string      `json:"message"`
		}
		if json.Unmarshal(e, &eo) != nil || eo.Code == nil || eo.Message == nil {
			return fmt.Errorf("a malformed error: %.200q", msg)
		}
		if _, err := eo.Code.Int64(); err != nil {
			return fmt.Errorf("an error code that is not an integer: %.200q", msg)
		}
	}
	return nil
}
