package feed

import (
	"context"
	"embed"
	"errors"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/rpcgen/rpcgen/ext/websocket"
	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/rpchttp"
	"github.com/rpcgen/rpcgen/runtime/rpcnet"
)

//go:embed web/index.html
var web embed.FS

// ServeQuotes serves impl on the Unix socket path until ctx ends, then shuts
// down gracefully: the quotes service.
func ServeQuotes(ctx context.Context, path string, impl Quotes, log *slog.Logger) error {
	ln, err := rpcnet.Listen("unix", path)
	if err != nil {
		return err
	}
	srv := &rpcnet.Server{Options: runtime.Options{Handler: NewQuotesHandler(impl), Logger: log}}
	log.Info("serving quotes over a Unix socket", "path", path)
	return serveUntil(ctx, func() error { return srv.Serve(ln) }, srv.Shutdown)
}

// Gateway is the second service: it calls the quotes service over its Unix
// socket through the generated client, which implements Quotes, and serves
// that to browsers over WebSocket (/ws), to HTTP clients (/rpc, streams as
// Server-Sent Events), and the page (/).
type Gateway struct {
	upstream *runtime.Redialer
	ws       *websocket.Handler
	mux      *http.ServeMux
}

// NewGateway dials the quotes service at the Unix socket path.
func NewGateway(ctx context.Context, path string, log *slog.Logger) (*Gateway, error) {
	up, err := rpcnet.Dial(ctx, "unix", path, &rpcnet.DialOptions{Redial: runtime.RedialOptions{Logger: log}})
	if err != nil {
		return nil, err
	}
	h := NewQuotesHandler(NewQuotesClient(up))
	g := &Gateway{upstream: up, ws: websocket.NewHandler(h, &websocket.Options{Options: runtime.Options{Logger: log}}), mux: http.NewServeMux()}
	page, _ := fs.Sub(web, "web")
	g.mux.Handle("/ws", g.ws)
	g.mux.Handle("/rpc", rpchttp.NewHandler(h, rpchttp.Options{Logger: log}))
	g.mux.Handle("/", http.FileServerFS(page))
	return g, nil
}

// ServeHTTP implements http.Handler.
func (g *Gateway) ServeHTTP(w http.ResponseWriter, r *http.Request) { g.mux.ServeHTTP(w, r) }

// Serve serves the gateway on ln until ctx ends.
func (g *Gateway) Serve(ctx context.Context, ln net.Listener) error {
	hs := &http.Server{Handler: g, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute, MaxHeaderBytes: 64 << 10}
	rpchttp.PromptShutdown(hs) // a connection dialled and never used does not hold Shutdown
	return serveUntil(ctx, func() error { return hs.Serve(ln) }, func(ctx context.Context) error {
		return errors.Join(hs.Shutdown(ctx), g.ws.Shutdown(ctx), g.upstream.Close())
	})
}

// serveUntil runs serve until ctx ends, then shuts down within five seconds.
func serveUntil(ctx context.Context, serve func() error, shutdown func(context.Context) error) error {
	errc := make(chan error, 1)
	go func() { errc <- serve() }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := shutdown(sctx)
	<-errc
	return err
}
