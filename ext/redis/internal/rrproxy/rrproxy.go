// Package rrproxy is the round-robin reverse proxy the multi-replica tests
// put in front of their replica processes: each request goes to the next
// replica that is up, whatever session it belongs to, as the least
// helpful load balancer would send it. It counts what the tests check: the
// requests each replica got, the GET streams and 2026-07-28
// subscriptions/listen streams open on each, and the GETs that resume a
// stream (Last-Event-ID).
package rrproxy

import (
	"bytes"
	"encoding/json"
	"io"
	"log"
	"net/http"
	"net/http/httputil"
	"net/url"
	"sync/atomic"
	"time"
)

// Proxy sends each request to the next replica that is up.
type Proxy struct {
	backends []*httputil.ReverseProxy
	down     []atomic.Bool
	served   []atomic.Int64
	streams  []atomic.Int64
	listens  []atomic.Int64
	answers  []atomic.Int64
	next     atomic.Int64
	resumes  atomic.Int64
	tr       *http.Transport
}

// New returns a proxy to the MCP endpoints targets (each request's path is
// replaced by its target's). errLog receives the proxy's errors (a
// replica killed mid-stream); nil discards them.
func New(targets []*url.URL, errLog *log.Logger) *Proxy {
	if errLog == nil {
		errLog = log.New(io.Discard, "", 0)
	}
	tr := &http.Transport{MaxIdleConnsPerHost: 512, IdleConnTimeout: time.Minute}
	p := &Proxy{down: make([]atomic.Bool, len(targets)), served: make([]atomic.Int64, len(targets)),
		streams: make([]atomic.Int64, len(targets)), listens: make([]atomic.Int64, len(targets)), answers: make([]atomic.Int64, len(targets)),
		tr: tr}
	for _, u := range targets {
		p.backends = append(p.backends, &httputil.ReverseProxy{
			Rewrite: func(pr *httputil.ProxyRequest) {
				pr.SetURL(u)
				pr.Out.URL.Path, pr.Out.URL.RawPath = u.Path, u.RawPath
			},
			FlushInterval: -1,
			Transport:     tr,
			ErrorLog:      errLog,
		})
	}
	return p
}

// maxBody bounds a request body the proxy reads before it forwards it.
const maxBody = 8 << 20

// ServeHTTP reads r's body, then sends r to the next replica that is up.
// It reads the body first, as load balancers do by default (nginx's
// proxy_request_buffering): streamed through, a body still being copied
// when the replica's response headers arrive and are flushed is cut by
// Go's HTTP/1 server, and the response stream with it.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var body []byte
	if r.Body != nil && r.Body != http.NoBody {
		var err error
		if body, err = io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody)); err != nil {
			http.Error(w, "rrproxy: read the request body: "+err.Error(), http.StatusBadRequest)
			return
		}
		r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
	}
	i := p.pick()
	p.served[i].Add(1)
	if r.Method == http.MethodPost && isAnswer(body) {
		p.answers[i].Add(1)
	}
	if r.Method == http.MethodGet {
		if r.Header.Get("Last-Event-ID") != "" {
			p.resumes.Add(1)
		}
		p.streams[i].Add(1)
		defer p.streams[i].Add(-1)
	}
	if r.Method == http.MethodPost && r.Header.Get("Mcp-Method") == "subscriptions/listen" {
		p.listens[i].Add(1)
		defer p.listens[i].Add(-1)
	}
	p.backends[i].ServeHTTP(w, r)
}

// pick returns the next replica that is up (all down: the next one).
func (p *Proxy) pick() int {
	for range len(p.backends) {
		i := int(p.next.Add(1)-1) % len(p.backends)
		if !p.down[i].Load() {
			return i
		}
	}
	return int(p.next.Add(1)-1) % len(p.backends)
}

// Down takes replica i out: the proxy sends it nothing more.
func (p *Proxy) Down(i int) { p.down[i].Store(true) }

// Close closes the proxy's idle connections to the replicas. Call it
// before the replicas are stopped: Go's HTTP server waits up to 5 s on a
// connection that was dialled but never carried a request (the transport
// dials one for a request that then found another connection free), so a
// replica stopped gracefully with such a connection open may miss its
// own shutdown deadline.
func (p *Proxy) Close() { p.tr.CloseIdleConnections() }

// Served is how many requests replica i got.
func (p *Proxy) Served(i int) int64 { return p.served[i].Load() }

// Streams is how many GET requests (standalone or resumed streams) are
// open on replica i now.
func (p *Proxy) Streams(i int) int64 { return p.streams[i].Load() }

// Listens is how many subscriptions/listen requests (2026-07-28) are open
// on replica i now.
func (p *Proxy) Listens(i int) int64 { return p.listens[i].Load() }

// Answers is how many of the client's answers to the server's requests
// (a POSTed JSON-RPC response) replica i got.
func (p *Proxy) Answers(i int) int64 { return p.answers[i].Load() }

// isAnswer reports whether body is one JSON-RPC response.
func isAnswer(body []byte) bool {
	if !bytes.Contains(body, []byte(`"result"`)) && !bytes.Contains(body, []byte(`"error"`)) {
		return false
	}
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	return json.Unmarshal(body, &m) == nil && m.Method == "" && len(m.ID) > 0 && (m.Result != nil || m.Error != nil)
}

// Resumes is how many GETs carried a Last-Event-ID.
func (p *Proxy) Resumes() int64 { return p.resumes.Load() }
