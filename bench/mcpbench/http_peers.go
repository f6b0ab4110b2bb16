package mcpbench

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpgoserver "github.com/mark3labs/mcp-go/server"
	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttp"
)

// HTTPPeer is one Streamable HTTP server under test. Every one is measured
// through the same client (httpCaller), over a real 127.0.0.1 listener
// served by net/http.
type HTTPPeer struct {
	// Name is the impl= part of a benchmark's name.
	Name string
	// handler returns the server's handler for era's requests, answering
	// with enc's responses, and a function that releases what it holds.
	handler func(era, enc string) (http.Handler, func() error)
}

// HTTPPeers lists every Streamable HTTP peer, rpcgen first.
var HTTPPeers = []*HTTPPeer{
	{Name: "rpcgen", handler: rpcgenHTTP},
	{Name: "gosdk", handler: gosdkHTTP},
	{Name: "mcpgo", handler: func(era, enc string) (http.Handler, func() error) { return mcpgoHTTP(enc, false) }},
	{Name: "mcpgo-validate", handler: func(era, enc string) (http.Handler, func() error) { return mcpgoHTTP(enc, true) }},
	{Name: "reference", handler: func(era, enc string) (http.Handler, func() error) { return newRefHTTP(enc == EncSSE), nil }},
	{Name: "reference-tuned", handler: func(era, enc string) (http.Handler, func() error) { return newRefTunedHTTP(enc == EncSSE), nil }},
}

// rpcgenHTTP is mcphttp.NewHandler over the generated tools: one handler
// serves both eras; Options.SSE makes every response an event stream.
func rpcgenHTTP(era, enc string) (http.Handler, func() error) {
	h := mcphttp.NewHandler(rpcgenServer(), &mcphttp.Options{SSE: enc == EncSSE})
	return h, h.Close
}

// gosdkHTTP is the Go SDK's StreamableHTTPHandler. Its stateful handler
// (sessions) answers 2026-07-28 requests with an unsupported-version error,
// so the modern era gets its stateless handler, which serves them; its
// responses are event streams unless JSONResponse is set.
func gosdkHTTP(era, enc string) (http.Handler, func() error) {
	srv := gosdkServer()
	h := gosdk.NewStreamableHTTPHandler(func(*http.Request) *gosdk.Server { return srv },
		&gosdk.StreamableHTTPOptions{JSONResponse: enc == EncJSON, Stateless: era == EraModern})
	return h, nil
}

// mcpgoHTTP is mcp-go's StreamableHTTPServer with its defaults (both eras on
// one endpoint, sessions registered at initialize). It answers with an event
// stream only once a notification is sent; for the SSE rows a tool
// middleware asks for the upgrade with the session's own
// UpgradeToSSEWhenReceiveNotification, which makes the response an event
// stream without sending anything more.
func mcpgoHTTP(enc string, validate bool) (http.Handler, func() error) {
	var extra []mcpgoserver.ServerOption
	if enc == EncSSE {
		extra = append(extra, mcpgoserver.WithToolHandlerMiddleware(func(next mcpgoserver.ToolHandlerFunc) mcpgoserver.ToolHandlerFunc {
			return func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
				if s, ok := mcpgoserver.ClientSessionFromContext(ctx).(mcpgoserver.SessionWithStreamableHTTPConfig); ok {
					s.UpgradeToSSEWhenReceiveNotification()
				}
				return next(ctx, req)
			}
		}))
	}
	h := mcpgoserver.NewStreamableHTTPServer(mcpgoServer(validate, extra...),
		mcpgoserver.WithStreamableHTTPLogger(discardLogger))
	return h, func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		return h.Shutdown(ctx)
	}
}

// httpServer is a handler served by net/http on a 127.0.0.1 listener.
type httpServer struct {
	URL     string
	srv     *http.Server
	done    chan error
	release func() error
	conns   atomic.Int64 // open connections

	mu      sync.Mutex
	changed chan struct{} // closed and replaced when conns changes
}

// connsChanged returns the channel closed when the number of open
// connections next changes.
func (s *httpServer) connsChanged() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.changed == nil {
		s.changed = make(chan struct{})
	}
	return s.changed
}

func (s *httpServer) noteConns(d int64) {
	s.conns.Add(d)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.changed != nil {
		close(s.changed)
		s.changed = nil
	}
}

// serveHTTP serves h on a new 127.0.0.1 listener; release (may be nil) is
// called after the server has stopped.
func serveHTTP(h http.Handler, release func() error) (*httpServer, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &httpServer{URL: "http://" + ln.Addr().String() + "/mcp", done: make(chan error, 1), release: release}
	s.srv = &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ConnState: func(_ net.Conn, st http.ConnState) {
			switch st {
			case http.StateNew:
				s.noteConns(1)
			case http.StateClosed, http.StateHijacked:
				s.noteConns(-1)
			}
		},
	}
	go func() { s.done <- s.srv.Serve(ln) }()
	return s, nil
}

// Close stops the server (open connections and streams are closed), then
// releases the handler.
func (s *httpServer) Close() error {
	err := s.srv.Close()
	if serr := <-s.done; serr != nil && !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	if s.release != nil {
		if rerr := s.release(); rerr != nil && err == nil {
			err = rerr
		}
	}
	return err
}

// ConnectHTTP starts peer's server for era and enc on a 127.0.0.1 listener
// and connects the common client to it. Closing the caller ends its session
// (legacy), closes its connections and stops the server.
func (p *HTTPPeer) ConnectHTTP(ctx context.Context, era, enc string) (Caller, error) {
	h, release := p.handler(era, enc)
	s, err := serveHTTP(h, release)
	if err != nil {
		return nil, err
	}
	c, err := dialHTTP(ctx, s.URL, era, enc)
	if err != nil {
		s.Close()
		return nil, fmt.Errorf("%s: %w", p.Name, err)
	}
	return httpServed{c, s}, nil
}

// httpServed is a client with the server it owns.
type httpServed struct {
	*httpCaller
	srv *httpServer
}

func (h httpServed) Close() error {
	err := h.httpCaller.Close()
	if serr := h.srv.Close(); serr != nil && err == nil {
		err = serr
	}
	return err
}
