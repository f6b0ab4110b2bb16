package mcpbench

// The floor: only the JSON work one tools/call cannot avoid, done with
// encoding/json into concrete structs that know the tool's types. Nothing is
// framed, routed or validated; no goroutine, no lock, no transport.

import (
	"context"
	"encoding/json"
)

type floorMeta struct {
	ProtocolVersion    string   `json:"io.modelcontextprotocol/protocolVersion"`
	ClientCapabilities struct{} `json:"io.modelcontextprotocol/clientCapabilities"`
	ClientInfo         refImpl  `json:"io.modelcontextprotocol/clientInfo"`
}

type floorParams[A any] struct {
	Name      string     `json:"name"`
	Arguments A          `json:"arguments"`
	Meta      *floorMeta `json:"_meta,omitempty"`
}

type floorRequest[A any] struct {
	JSONRPC string         `json:"jsonrpc"`
	ID      int64          `json:"id"`
	Method  string         `json:"method"`
	Params  floorParams[A] `json:"params"`
}

type floorResult[R any] struct {
	Content           []refText      `json:"content"`
	StructuredContent R              `json:"structuredContent"`
	IsError           bool           `json:"isError,omitempty"`
	ResultType        string         `json:"resultType,omitempty"`
	Meta              *refServerMeta `json:"_meta,omitempty"`
}

type floorResponse[R any] struct {
	JSONRPC string         `json:"jsonrpc"`
	ID      int64          `json:"id"`
	Result  floorResult[R] `json:"result"`
}

// floorRoundTrip encodes and decodes the four messages of call id of tool
// name in era: the client's request, the server's view of it, the server's
// response (structured content and its text copy), the client's view of it.
func floorRoundTrip[A, R any](era string, id int64, name string, args A, tool func(A) R) (R, error) {
	var zero R
	req := floorRequest[A]{JSONRPC: "2.0", ID: id, Method: "tools/call", Params: floorParams[A]{Name: name, Arguments: args}}
	modern := era == EraModern
	if modern {
		req.Params.Meta = &floorMeta{ProtocolVersion: Versions[EraModern], ClientInfo: refImpl{"bench-client", "1.0.0"}}
	}
	// 1. The client encodes its request.
	reqJSON, err := json.Marshal(&req)
	if err != nil {
		return zero, err
	}
	// 2. The server decodes it, typed arguments included.
	var in floorRequest[A]
	if err := json.Unmarshal(reqJSON, &in); err != nil {
		return zero, err
	}
	// 3. The server encodes the response: structured content and its text copy.
	out := tool(in.Params.Arguments)
	text, err := json.Marshal(&out)
	if err != nil {
		return zero, err
	}
	resp := floorResponse[R]{JSONRPC: "2.0", ID: in.ID, Result: floorResult[R]{
		Content: []refText{{Type: "text", Text: string(text)}}, StructuredContent: out}}
	if in.Params.Meta != nil {
		resp.Result.ResultType = "complete"
		resp.Result.Meta = &refServerMeta{ServerInfo: refServerInfo}
	}
	respJSON, err := json.Marshal(&resp)
	if err != nil {
		return zero, err
	}
	// 4. The client decodes the response.
	var back floorResponse[R]
	if err := json.Unmarshal(respJSON, &back); err != nil {
		return zero, err
	}
	return back.Result.StructuredContent, nil
}

// floorCaller is a Caller that does only the floor's JSON work.
type floorCaller struct {
	era string
}

// Floor returns a Caller that does the floor's JSON work of one call in era
// and nothing else.
func Floor(era string) Caller { return floorCaller{era} }

func (f floorCaller) Add(_ context.Context, a, b int) (int, error) {
	s, err := floorRoundTrip(f.era, int64(a), "add", AddArgs{A: a, B: b}, func(in AddArgs) refSum { return refSum{in.A + in.B} })
	return s.Sum, err
}

func (f floorCaller) Echo(_ context.Context, text string) (string, error) {
	e, err := floorRoundTrip(f.era, 1, "echo", EchoArgs{Text: text}, func(in EchoArgs) refEchoed { return refEchoed(in) })
	return e.Text, err
}

func (floorCaller) Close() error { return nil }
