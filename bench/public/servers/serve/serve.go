// Package serve is the main of each public benchmark server: it reads the
// addresses of Redis and the API service (flags, or the original harness's
// REDIS_URL and API_SERVICE_URL), serves the MCP endpoint at /mcp and
// {"status":"ok"} at /health, prints "listening on ADDR" once it accepts
// connections, and stops on SIGINT or SIGTERM. With -pprof it also serves
// net/http/pprof's profiles at /debug/pprof/ (publicbench -cpuprofile).
package serve

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/rpcgen/rpcgen/bench/public/shop"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttp"
)

// Handler builds a server's MCP endpoint over impl; the function it returns
// releases what the endpoint holds.
type Handler func(impl shop.Shop) (http.Handler, func() error)

func env(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// Main runs the server named name (it is the answers' server_type).
func Main(name string, handler Handler) {
	addr := flag.String("addr", env("ADDR", ":8081"), "listen address (ADDR)")
	redisURL := flag.String("redis", env("REDIS_URL", "redis://127.0.0.1:6379"), "Redis URL (REDIS_URL)")
	api := flag.String("api", env("API_SERVICE_URL", "http://127.0.0.1:8100"), "API service base URL (API_SERVICE_URL)")
	profiles := flag.Bool("pprof", false, "serve profiles at /debug/pprof/")
	flag.Parse()
	if err := run(name, handler, *addr, *redisURL, *api, *profiles); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		os.Exit(1)
	}
}

func run(name string, handler Handler, addr, redisURL, api string, profiles bool) error {
	b, err := shop.NewBackend(api, redisURL, name)
	if err != nil {
		return err
	}
	defer b.Close()
	mcpHandler, release := handler(b)
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcpHandler)
	mux.HandleFunc("/health", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"status":"ok","server_type":%q}`, name)
	})
	if profiles {
		mux.HandleFunc("/debug/pprof/", pprof.Index)
		mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	mcphttp.PromptShutdown(srv) // a connection dialled and never used does not hold Shutdown
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	fmt.Printf("listening on %s\n", ln.Addr())
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGINT, syscall.SIGTERM)
	select {
	case err = <-done:
	case <-stop:
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err = srv.Shutdown(ctx)
		cancel()
	}
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return errors.Join(err, release())
}
