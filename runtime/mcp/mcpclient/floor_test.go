package mcpclient_test

import (
	"encoding/json"
	"testing"
)

// The yardstick for BenchmarkClientToolsCall: only the JSON work one tools/call
// round trip cannot avoid, done with encoding/json into concrete structs. The
// four messages are the ones the legacy benchmark exchanges.

type floorArgs struct {
	A int `json:"a"`
	B int `json:"b"`
}

type floorResult struct {
	Sum int `json:"sum"`
}

type floorCallParams struct {
	Name      string    `json:"name"`
	Arguments floorArgs `json:"arguments"`
}

type floorRequest struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      int64           `json:"id"`
	Method  string          `json:"method"`
	Params  floorCallParams `json:"params"`
}

type floorText struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type floorCallResult struct {
	Content           []floorText `json:"content"`
	StructuredContent floorResult `json:"structuredContent"`
	IsError           bool        `json:"isError,omitempty"`
}

type floorResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      int64           `json:"id"`
	Result  floorCallResult `json:"result"`
}

// floorRoundTrip encodes and decodes the four messages of one call.
func floorRoundTrip(i int) (int, error) {
	// 1. The client encodes its request.
	req, err := json.Marshal(&floorRequest{JSONRPC: "2.0", ID: int64(i), Method: "tools/call",
		Params: floorCallParams{Name: "add", Arguments: floorArgs{A: i, B: 1000}}})
	if err != nil {
		return 0, err
	}
	// 2. The server decodes it, typed arguments included.
	var in floorRequest
	if err := json.Unmarshal(req, &in); err != nil {
		return 0, err
	}
	// 3. The server encodes the response: structured content and its text copy.
	out := floorResult{Sum: in.Params.Arguments.A + in.Params.Arguments.B}
	text, err := json.Marshal(&out)
	if err != nil {
		return 0, err
	}
	resp, err := json.Marshal(&floorResponse{JSONRPC: "2.0", ID: in.ID, Result: floorCallResult{
		Content: []floorText{{Type: "text", Text: string(text)}}, StructuredContent: out}})
	if err != nil {
		return 0, err
	}
	// 4. The client decodes the response.
	var back floorResponse
	if err := json.Unmarshal(resp, &back); err != nil {
		return 0, err
	}
	return back.Result.StructuredContent.Sum, nil
}

// BenchmarkJSONFloor is the cost of the JSON alone; compare
// BenchmarkClientToolsCall with it.
func BenchmarkJSONFloor(b *testing.B) {
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		sum, err := floorRoundTrip(i)
		if err != nil || sum != i+1000 {
			b.Fatalf("sum %d, %v", sum, err)
		}
	}
}

func TestJSONFloor(t *testing.T) {
	if sum, err := floorRoundTrip(5); err != nil || sum != 1005 {
		t.Errorf("floorRoundTrip: %d, %v", sum, err)
	}
}
