// Package floorsrv is the public benchmark's floor: the least work an MCP
// server can do for this workload with no MCP library, so that its requests
// per second say how much of a server's rate is the server's at all.
//
// It is a reference, not a product. A plain net/http handler decodes each
// POST once with encoding/json into one small struct (the three tools'
// arguments share it), answers initialize with protocol version 2024-11-05
// whatever the client asks, accepts notifications with 202, answers
// tools/list with the tools' names, descriptions and input schemas taken
// once from the generated shop code (the content rpcgen's server lists at
// that version), and tools/call by calling the same shop.Shop every server
// serves, its result encoded by encoding/json as one text block (no
// structuredContent, which 2024-11-05 does not have). It is stateless: it
// names no session, so a client sends no DELETE, and one it sends anyway is
// answered 200. Each answer is one Write of a pooled buffer. It is correct
// for this workload's requests only: no batches, no sessions, no protocol
// negotiation, no Accept or Origin checks, no validation of arguments
// beyond their types (an unknown member is ignored); anything else gets a
// clear error answer (a JSON-RPC error, or 405 for another HTTP method).
package floorsrv

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/rpcgen/rpcgen/bench/public/shop"
)

// maxBody bounds a request's body.
const maxBody = 1 << 20

// request is every request of the workload, decoded once: the arguments of
// the three tools are one struct (their members do not clash).
type request struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  struct {
		Name      string `json:"name"`
		Arguments struct {
			Category string              `json:"category"`
			MinPrice float64             `json:"min_price"`
			MaxPrice float64             `json:"max_price"`
			Limit    int                 `json:"limit"`
			UserID   string              `json:"user_id"`
			Items    []shop.CheckoutItem `json:"items"`
		} `json:"arguments"`
	} `json:"params"`
}

// JSON-RPC error codes.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
	codeMethodNotFound = -32601
	codeInvalidParams  = -32602
)

var (
	// initializeResult is initialize's answer.
	initializeResult = []byte(`{"protocolVersion":"2024-11-05","capabilities":{"tools":{}},"serverInfo":{"name":"BenchmarkFloorServer","version":"1.0.0"}}`)
	// listResult is tools/list's answer, built once by init.
	listResult []byte

	contentTypeJSON = []string{"application/json"}
	errNoTool       = errors.New("unknown tool")
)

func init() {
	type tool struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		InputSchema json.RawMessage `json:"inputSchema"`
	}
	var tools []tool
	// The descriptors only: the handlers of a nil Shop are never called.
	for _, t := range shop.ShopTools(nil) {
		tools = append(tools, tool{t.Name, t.Description, t.InputSchema})
	}
	var err error
	if listResult, err = json.Marshal(map[string][]tool{"tools": tools}); err != nil {
		panic(err)
	}
}

// buffers hold the request bodies, the tools' encoded results and the
// answers.
var buffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

func getBuffer() *bytes.Buffer { return buffers.Get().(*bytes.Buffer) }

func putBuffer(b *bytes.Buffer) {
	if b.Cap() <= 64<<10 {
		b.Reset()
		buffers.Put(b)
	}
}

// Handler returns the floor's MCP endpoint serving impl and a function that
// releases it (nothing to release).
func Handler(impl shop.Shop) (http.Handler, func() error) {
	return &handler{impl: impl}, func() error { return nil }
}

type handler struct {
	impl shop.Shop
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodPost:
	case http.MethodDelete:
		// Stateless: there is no session to end.
		w.WriteHeader(http.StatusOK)
		return
	default:
		w.Header().Set("Allow", "POST, DELETE")
		http.Error(w, "floor: only POST (and DELETE) are served", http.StatusMethodNotAllowed)
		return
	}
	body := getBuffer()
	defer putBuffer(body)
	out := getBuffer()
	defer putBuffer(out)
	if _, err := body.ReadFrom(http.MaxBytesReader(w, r.Body, maxBody)); err != nil {
		http.Error(w, "floor: reading the body: "+err.Error(), http.StatusBadRequest)
		return
	}
	var req request
	if err := json.Unmarshal(body.Bytes(), &req); err != nil {
		// A member of the wrong type leaves the others decoded, the id
		// among them.
		code, msg := codeInvalidRequest, "invalid request: "+err.Error()
		if _, ok := errors.AsType[*json.UnmarshalTypeError](err); !ok {
			code, msg = codeParseError, "parse error: "+err.Error()
		} else if b := bytes.TrimLeft(body.Bytes(), " \t\r\n"); len(b) > 0 && b[0] == '[' {
			msg = "invalid request: the floor serves one JSON-RPC request object per POST, not a batch"
		}
		write(w, writeError(out, req.ID, code, msg))
		return
	}
	if req.JSONRPC != "2.0" {
		write(w, writeError(out, req.ID, codeInvalidRequest, `invalid request: jsonrpc must be "2.0"`))
		return
	}
	if req.ID == nil {
		// A notification (notifications/initialized): nothing to answer.
		w.WriteHeader(http.StatusAccepted)
		return
	}
	switch req.Method {
	case "initialize":
		writeResult(out, req.ID, initializeResult)
	case "tools/list":
		writeResult(out, req.ID, listResult)
	case "tools/call":
		h.call(r.Context(), out, &req)
	case "ping":
		writeResult(out, req.ID, []byte("{}"))
	default:
		writeError(out, req.ID, codeMethodNotFound, "method not found: "+req.Method)
	}
	write(w, out.Bytes())
}

// write sends the answer in one Write.
func write(w http.ResponseWriter, answer []byte) {
	hdr := w.Header()
	hdr["Content-Type"] = contentTypeJSON
	hdr["Content-Length"] = []string{strconv.Itoa(len(answer))}
	_, _ = w.Write(answer)
}

// call runs a tools/call and writes its answer to out.
func (h *handler) call(ctx context.Context, out *bytes.Buffer, req *request) {
	res := getBuffer()
	defer putBuffer(res)
	enc := json.NewEncoder(res)
	enc.SetEscapeHTML(false)
	a := &req.Params.Arguments
	var err error
	switch req.Params.Name {
	case shop.ShopSearchProductsTool:
		var v shop.SearchResult
		if v, err = h.impl.SearchProducts(ctx, shop.SearchArgs{Category: a.Category, MinPrice: a.MinPrice,
			MaxPrice: a.MaxPrice, Limit: a.Limit}); err == nil {
			err = enc.Encode(&v)
		}
	case shop.ShopGetUserCartTool:
		var v shop.CartResult
		if v, err = h.impl.GetUserCart(ctx, shop.CartArgs{UserID: a.UserID}); err == nil {
			err = enc.Encode(&v)
		}
	case shop.ShopCheckoutTool:
		var v shop.CheckoutResult
		if v, err = h.impl.Checkout(ctx, shop.CheckoutArgs{UserID: a.UserID, Items: a.Items}); err == nil {
			err = enc.Encode(&v)
		}
	default:
		err = errNoTool
	}
	if errors.Is(err, errNoTool) {
		writeError(out, req.ID, codeInvalidParams, "unknown tool: "+strconv.Quote(req.Params.Name))
		return
	}
	isError := err != nil
	text := bytes.TrimSuffix(res.Bytes(), []byte("\n"))
	if isError {
		// A tool's failure is its result, as MCP has it, for the model to read.
		text = []byte(err.Error())
	}
	writeHead(out, req.ID)
	out.WriteString(`"result":{"content":[{"type":"text","text":`)
	appendString(out, text)
	if isError {
		out.WriteString(`}],"isError":true}}`)
	} else {
		out.WriteString(`}]}}`)
	}
}

// writeHead writes an answer's members up to its result or error.
func writeHead(out *bytes.Buffer, id json.RawMessage) {
	out.WriteString(`{"jsonrpc":"2.0","id":`)
	if id == nil {
		out.WriteString("null")
	} else {
		out.Write(id)
	}
	out.WriteByte(',')
}

func writeResult(out *bytes.Buffer, id, result []byte) {
	writeHead(out, id)
	out.WriteString(`"result":`)
	out.Write(result)
	out.WriteByte('}')
}

// writeError writes an error answer to out and returns it.
func writeError(out *bytes.Buffer, id json.RawMessage, code int, msg string) []byte {
	writeHead(out, id)
	out.WriteString(`"error":{"code":`)
	out.WriteString(strconv.Itoa(code))
	out.WriteString(`,"message":`)
	appendString(out, []byte(msg))
	out.WriteString(`}}`)
	return out.Bytes()
}

// appendString writes s as a JSON string: quotes, backslashes and control
// characters escaped, invalid UTF-8 replaced.
func appendString(out *bytes.Buffer, s []byte) {
	const hex = "0123456789abcdef"
	out.WriteByte('"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, n := utf8.DecodeRune(s[i:])
			if r == utf8.RuneError && n == 1 {
				out.Write(s[start:i])
				out.WriteString(`\ufffd`)
				i += n
				start = i
				continue
			}
			i += n
			continue
		}
		if c >= 0x20 && c != '"' && c != '\\' {
			i++
			continue
		}
		out.Write(s[start:i])
		switch c {
		case '"', '\\':
			out.WriteByte('\\')
			out.WriteByte(c)
		case '\n':
			out.WriteString(`\n`)
		default:
			out.WriteString(`\u00`)
			out.WriteByte(hex[c>>4])
			out.WriteByte(hex[c&0xf])
		}
		i++
		start = i
	}
	out.Write(s[start:])
	out.WriteByte('"')
}
