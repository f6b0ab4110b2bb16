package mcpbench

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"sync"
	"sync/atomic"
)

// The reference is the smallest MCP server and client that do the work of
// a tools/call with encoding/json and no framework: concrete structs for
// every message, a switch on the method and the tool name, one goroutine per
// request on a stream, and no input validation beyond what decoding into
// the argument struct checks.

// refMeta is the 2026-07-28 _meta of a request.
type refMeta struct {
	ProtocolVersion    string           `json:"io.modelcontextprotocol/protocolVersion"`
	ClientCapabilities *json.RawMessage `json:"io.modelcontextprotocol/clientCapabilities,omitempty"`
	ClientInfo         *refImpl         `json:"io.modelcontextprotocol/clientInfo,omitempty"`
}

type refImpl struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// refServerMeta is the _meta of a 2026-07-28 result.
type refServerMeta struct {
	ServerInfo refImpl `json:"io.modelcontextprotocol/serverInfo"`
}

type refRequestIn struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
}

type refCallParamsIn struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	Meta      *refMeta        `json:"_meta"`
}

type refText struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type refCallResultOut struct {
	Content           []refText       `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent"`
	ResultType        string          `json:"resultType,omitempty"`
	Meta              *refServerMeta  `json:"_meta,omitempty"`
}

type refError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

type refResponseOut struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *refError       `json:"error,omitempty"`
}

type refInitResult struct {
	ProtocolVersion string          `json:"protocolVersion"`
	Capabilities    json.RawMessage `json:"capabilities"`
	ServerInfo      refImpl         `json:"serverInfo"`
}

var refServerInfo = refImpl{Name: "bench", Version: "1.0.0"}

// refServer is one connection's server: legacy state is whether initialize
// has been seen.
type refServer struct {
	initialized atomic.Bool
}

// handle answers one message; nil means no reply (a notification).
func (s *refServer) handle(msg []byte) []byte {
	var req refRequestIn
	if err := json.Unmarshal(msg, &req); err != nil {
		return refErrorReply(json.RawMessage("null"), -32700, "parse error")
	}
	return s.serve(&req, nil)
}

// serve answers one decoded message; nil means no reply (a notification).
// mcpName, over 2026-07-28 HTTP, is the Mcp-Name header, which must name the
// tool the body calls.
func (s *refServer) serve(req *refRequestIn, mcpName *string) []byte {
	if req.ID == nil {
		return nil // notifications/initialized and the like need nothing
	}
	var result any
	var rerr *refError
	switch req.Method {
	case "initialize":
		s.initialized.Store(true)
		result = &refInitResult{ProtocolVersion: Versions[EraLegacy], Capabilities: json.RawMessage(`{"tools":{}}`), ServerInfo: refServerInfo}
	case "tools/call":
		result, rerr = s.callTool(req.Params, mcpName)
	default:
		rerr = &refError{-32601, "method not found"}
	}
	out, err := json.Marshal(&refResponseOut{JSONRPC: "2.0", ID: req.ID, Result: result, Error: rerr})
	if err != nil {
		return refErrorReply(req.ID, -32603, err.Error())
	}
	return out
}

func (s *refServer) callTool(params json.RawMessage, mcpName *string) (any, *refError) {
	var p refCallParamsIn
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, &refError{-32602, err.Error()}
	}
	if mcpName != nil && *mcpName != p.Name {
		return nil, &refError{-32020, "Mcp-Name does not match the tool called"}
	}
	modern := p.Meta != nil
	if modern && p.Meta.ProtocolVersion != Versions[EraModern] {
		return nil, &refError{-32022, "unsupported protocol version"}
	}
	if !modern && !s.initialized.Load() {
		return nil, &refError{-32600, "not initialized"}
	}
	var structured []byte
	var err error
	switch p.Name {
	case "add":
		var in AddArgs
		if err = json.Unmarshal(p.Arguments, &in); err == nil {
			structured, err = json.Marshal(refSum{Sum: in.A + in.B})
		}
	case "echo":
		var in EchoArgs
		if err = json.Unmarshal(p.Arguments, &in); err == nil {
			structured, err = json.Marshal(refEchoed(in))
		}
	default:
		return nil, &refError{-32602, "unknown tool " + p.Name}
	}
	if err != nil {
		return &refCallResultOut{Content: []refText{{"text", err.Error()}}}, nil
	}
	res := &refCallResultOut{Content: []refText{{"text", string(structured)}}, StructuredContent: structured}
	if modern {
		res.ResultType = "complete"
		res.Meta = &refServerMeta{ServerInfo: refServerInfo}
	}
	return res, nil
}

type refSum struct {
	Sum int `json:"sum"`
}

type refEchoed struct {
	Text string `json:"text"`
}

func refErrorReply(id json.RawMessage, code int, message string) []byte {
	out, _ := json.Marshal(&refResponseOut{JSONRPC: "2.0", ID: id, Error: &refError{code, message}})
	return out
}

// refServe serves one connection on a stream, one JSON message per line,
// each request on its own goroutine, until r ends.
func refServe(r io.Reader, w io.Writer) error {
	s := &refServer{}
	br := bufio.NewReaderSize(r, 64<<10)
	var mu sync.Mutex
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 1 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if out := s.handle(line); out != nil {
					mu.Lock()
					w.Write(append(out, '\n'))
					mu.Unlock()
				}
			}()
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

func refServeStdio(context.Context) error { return refServe(os.Stdin, os.Stdout) }
