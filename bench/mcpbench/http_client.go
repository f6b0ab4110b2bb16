package mcpbench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// The Streamable HTTP benchmarks measure every server through this one
// client, so the client's cost is the same in every column: a plain
// net/http client that posts tools/call bodies assembled from prepared
// pieces, reads the whole response (JSON, or an event stream that ends with
// the response), and decodes it with encoding/json into a concrete struct to
// check its id and its result.

// Response encodings of the Streamable HTTP rows.
const (
	EncJSON = "json" // the server answers a POST with application/json
	EncSSE  = "sse"  // the server answers a POST with a text/event-stream
)

// httpCaller is one Streamable HTTP client of one server, in one era: a
// legacy one holds the session its initialize opened.
type httpCaller struct {
	url     string
	era     string
	enc     string // EncJSON or EncSSE: the responses it expects
	version string
	hc      *http.Client
	tr      *http.Transport
	session string // legacy only
	nextID  atomic.Int64
	bufs    sync.Pool // *[]byte: request bodies and response bodies
}

// newHTTPTransport returns the transport every benchmark client uses: keep-
// alive connections, enough idle ones for 64 callers, no compression.
func newHTTPTransport() *http.Transport {
	return &http.Transport{
		MaxIdleConns:        256,
		MaxIdleConnsPerHost: 256,
		IdleConnTimeout:     time.Minute,
		DisableCompression:  true,
	}
}

// dialHTTP connects a client to the Streamable HTTP endpoint url in era: the
// legacy era runs initialize and notifications/initialized and keeps the
// session id; the modern era has no handshake.
func dialHTTP(ctx context.Context, url, era, enc string) (*httpCaller, error) {
	tr := newHTTPTransport()
	c := &httpCaller{url: url, era: era, enc: enc, version: Versions[era], tr: tr, hc: &http.Client{Transport: tr}}
	c.bufs.New = func() any { b := make([]byte, 0, 4096); return &b }
	if era == EraLegacy {
		sid, err := httpInitialize(ctx, c.hc, url)
		if err != nil {
			tr.CloseIdleConnections()
			return nil, err
		}
		c.session = sid
	}
	return c, nil
}

// Request bodies are assembled from these pieces: prefix, id, the tool's
// part (name and arguments), then the era's suffix.
var (
	httpPrefix      = []byte(`{"jsonrpc":"2.0","id":`)
	httpAddPart     = []byte(`,"method":"tools/call","params":{"name":"add","arguments":{"a":`)
	httpAddPart2    = []byte(`,"b":1000}`)
	httpEchoPart    = []byte(`,"method":"tools/call","params":{"name":"echo","arguments":{"text":` + mustJSON(EchoText) + `}`)
	httpLegacyEnd   = []byte(`}}`)
	httpModernEnd   = []byte(`,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"bench-client","version":"1.0.0"}}}}`)
	httpInitBody    = []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench-client","version":"1.0.0"}}}`)
	httpInitialized = []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
)

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// newPost returns a POST of body to url with the headers every client
// request carries.
func newPost(ctx context.Context, url string, body []byte) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header["Content-Type"] = []string{"application/json"}
	req.Header["Accept"] = []string{"application/json, text/event-stream"}
	return req, nil
}

// httpInitialize opens a legacy (2025-11-25) session at url: initialize,
// whose response must name that version and carry an Mcp-Session-Id, then
// notifications/initialized, which must get 202.
func httpInitialize(ctx context.Context, hc *http.Client, url string) (string, error) {
	req, err := newPost(ctx, url, httpInitBody)
	if err != nil {
		return "", err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return "", err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return "", err
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("initialize: status %d: %s", resp.StatusCode, body)
	}
	msg, err := responseMessage(resp.Header.Get("Content-Type"), body)
	if err != nil {
		return "", fmt.Errorf("initialize: %w", err)
	}
	var init struct {
		ID     int64 `json:"id"`
		Result struct {
			ProtocolVersion string `json:"protocolVersion"`
		} `json:"result"`
	}
	if err := json.Unmarshal(msg, &init); err != nil {
		return "", fmt.Errorf("initialize: %w", err)
	}
	if init.Result.ProtocolVersion != Versions[EraLegacy] {
		return "", fmt.Errorf("initialize: negotiated %q, want %s: %s", init.Result.ProtocolVersion, Versions[EraLegacy], msg)
	}
	sid := resp.Header.Get("Mcp-Session-Id")
	if sid == "" {
		return "", errors.New("initialize: no Mcp-Session-Id")
	}
	req, err = newPost(ctx, url, httpInitialized)
	if err != nil {
		return "", err
	}
	req.Header["Mcp-Session-Id"] = []string{sid}
	req.Header["Mcp-Protocol-Version"] = []string{Versions[EraLegacy]}
	resp, err = hc.Do(req)
	if err != nil {
		return "", err
	}
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		return "", fmt.Errorf("notifications/initialized: status %d: %s", resp.StatusCode, body)
	}
	return sid, nil
}

// httpDelete ends the legacy session sid at url.
func httpDelete(ctx context.Context, hc *http.Client, url, sid string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, url, nil)
	if err != nil {
		return err
	}
	req.Header["Mcp-Session-Id"] = []string{sid}
	req.Header["Mcp-Protocol-Version"] = []string{Versions[EraLegacy]}
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("DELETE: status %d: %s", resp.StatusCode, body)
	}
	return nil
}

// responseMessage returns the JSON-RPC response in a POST's body: the body
// itself for application/json; for an event stream, the data of its last
// event with data (the priming event has none; any notification precedes the
// response).
func responseMessage(contentType string, body []byte) ([]byte, error) {
	switch {
	case hasMediaType(contentType, "application/json"):
		return body, nil
	case hasMediaType(contentType, "text/event-stream"):
		return lastEventData(body)
	}
	return nil, fmt.Errorf("content type %q: %.200s", contentType, body)
}

func hasMediaType(ct, want string) bool {
	return len(ct) >= len(want) && ct[:len(want)] == want && (len(ct) == len(want) || ct[len(want)] == ';' || ct[len(want)] == ' ')
}

// lastEventData parses an event stream (LF or CRLF line ends) and returns the
// data of its last event that has any; the benchmark messages are one line.
func lastEventData(body []byte) ([]byte, error) {
	var last, cur []byte
	for len(body) > 0 {
		line := body
		if i := bytes.IndexByte(body, '\n'); i >= 0 {
			line, body = body[:i], body[i+1:]
		} else {
			body = nil
		}
		line = bytes.TrimSuffix(line, []byte("\r"))
		switch {
		case len(line) == 0:
			if len(cur) > 0 {
				last = cur
			}
			cur = nil
		case bytes.HasPrefix(line, []byte("data:")):
			d := bytes.TrimPrefix(line[5:], []byte(" "))
			if len(cur) > 0 {
				cur = append(append(cur, '\n'), d...)
			} else {
				cur = d
			}
		}
	}
	if len(cur) > 0 {
		last = cur
	}
	if last == nil {
		return nil, errors.New("event stream without a message")
	}
	return last, nil
}

// httpResult is the part of a tools/call response the client checks.
type httpResult struct {
	ID     int64 `json:"id"`
	Result struct {
		StructuredContent struct {
			Sum  *int    `json:"sum"`
			Text *string `json:"text"`
		} `json:"structuredContent"`
		IsError    bool   `json:"isError"`
		ResultType string `json:"resultType"`
	} `json:"result"`
	Error *refError `json:"error"`
}

// call makes call i of tool (add: i+1000; echo: EchoText) and checks that
// the response answers this request with the right result.
func (c *httpCaller) call(ctx context.Context, tool string, i int) error {
	id := c.nextID.Add(1)
	bp := c.bufs.Get().(*[]byte)
	defer c.bufs.Put(bp)
	b := append((*bp)[:0], httpPrefix...)
	b = strconv.AppendInt(b, id, 10)
	switch tool {
	case "add":
		b = append(b, httpAddPart...)
		b = strconv.AppendInt(b, int64(i), 10)
		b = append(b, httpAddPart2...)
	case "echo":
		b = append(b, httpEchoPart...)
	default:
		return fmt.Errorf("unknown tool %q", tool)
	}
	if c.era == EraModern {
		b = append(b, httpModernEnd...)
	} else {
		b = append(b, httpLegacyEnd...)
	}
	*bp = b
	req, err := newPost(ctx, c.url, b)
	if err != nil {
		return err
	}
	req.Header["Mcp-Protocol-Version"] = []string{c.version}
	if c.era == EraModern {
		req.Header["Mcp-Method"] = []string{"tools/call"}
		req.Header["Mcp-Name"] = []string{tool}
	} else {
		req.Header["Mcp-Session-Id"] = []string{c.session}
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return err
	}
	rb := c.bufs.Get().(*[]byte)
	defer c.bufs.Put(rb)
	body, err := readAll(resp.Body, (*rb)[:0])
	resp.Body.Close()
	*rb = body
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s %d: status %d: %.300s", tool, i, resp.StatusCode, body)
	}
	ct := resp.Header.Get("Content-Type")
	if want := c.wantType(); !hasMediaType(ct, want) {
		return fmt.Errorf("%s %d: Content-Type %q, want %s", tool, i, ct, want)
	}
	msg, err := responseMessage(ct, body)
	if err != nil {
		return fmt.Errorf("%s %d: %w", tool, i, err)
	}
	var res httpResult
	if err := json.Unmarshal(msg, &res); err != nil {
		return fmt.Errorf("%s %d: %w: %.300s", tool, i, err, msg)
	}
	sc := &res.Result.StructuredContent
	switch {
	case res.ID != id:
		return fmt.Errorf("%s %d: response to id %d answers id %d", tool, i, id, res.ID)
	case res.Error != nil:
		return fmt.Errorf("%s %d: error %d: %s", tool, i, res.Error.Code, res.Error.Message)
	case res.Result.IsError:
		return fmt.Errorf("%s %d: tool error: %.300s", tool, i, msg)
	case c.era == EraModern && res.Result.ResultType != "complete":
		return fmt.Errorf("%s %d: resultType %q", tool, i, res.Result.ResultType)
	case tool == "add" && (sc.Sum == nil || *sc.Sum != i+1000):
		return fmt.Errorf("add(%d, 1000): %.300s", i, msg)
	case tool == "echo" && (sc.Text == nil || *sc.Text != EchoText):
		return fmt.Errorf("echo: the text returned differs from the text sent: %.300s", msg)
	}
	return nil
}

// wantType is the media type of the responses the caller's row measures.
func (c *httpCaller) wantType() string {
	if c.enc == EncSSE {
		return "text/event-stream"
	}
	return "application/json"
}

// readAll reads r to its end into b.
func readAll(r io.Reader, b []byte) ([]byte, error) {
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
}

// Add and Echo make httpCaller a Caller; runCalls uses call directly.
func (c *httpCaller) Add(ctx context.Context, a, b int) (int, error) {
	if b != 1000 {
		return 0, errors.New("the HTTP client adds 1000 only")
	}
	return a + b, c.call(ctx, "add", a)
}

func (c *httpCaller) Echo(ctx context.Context, text string) (string, error) {
	if text != EchoText {
		return "", errors.New("the HTTP client echoes EchoText only")
	}
	return text, c.call(ctx, "echo", 0)
}

// Close ends a legacy session (DELETE) and closes the idle connections.
func (c *httpCaller) Close() error {
	var err error
	if c.session != "" {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err = httpDelete(ctx, c.hc, c.url, c.session)
		cancel()
	}
	c.tr.CloseIdleConnections()
	return err
}

// DialHTTP connects the common Streamable HTTP client to the endpoint url
// of a server started elsewhere (package replicabench's replicas) in era,
// expecting enc's responses; closing it ends its session (legacy) and its
// connections, not the server.
func DialHTTP(ctx context.Context, url, era, enc string) (Caller, error) {
	return dialHTTP(ctx, url, era, enc)
}
