// Command calculator shows rpcgen end to end. Run with no arguments, it
// starts itself as a JSON-RPC server subprocess, calls every method of the
// Calculator interface through the generated typed client over the
// subprocess's stdin and stdout, prints the results and exits.
//
//	go run ./examples/calculator                     # client + server subprocess over stdio
//	go run ./examples/calculator --stdio             # serve on stdin/stdout
//	go run ./examples/calculator --http 127.0.0.1:8080  # serve JSON-RPC over HTTP POST (port 0: any free port)
//	go run ./examples/calculator --http 127.0.0.1:8080 --cors-origin http://localhost:5173  # ... for that origin's pages too
//	go run ./examples/calculator --call http://127.0.0.1:8080  # call an HTTP server
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"time"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/rpchttp"
)

func main() {
	stdio := flag.Bool("stdio", false, "serve JSON-RPC on stdin and stdout")
	addr := flag.String("http", "", "serve JSON-RPC over HTTP on this address (e.g. 127.0.0.1:8080; port 0 picks a free one and logs it)")
	call := flag.String("call", "", "call the server at this HTTP URL instead of starting a subprocess")
	var cors []string
	flag.Func("cors-origin", "with --http, let the browser pages of this `origin` (scheme://host[:port]) call the server (CORS; repeatable, \"*\" for any)", func(o string) error {
		cors = append(cors, o)
		return nil
	})
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))

	var err error
	switch {
	case *stdio:
		err = runtime.ServeStdio(ctx, runtime.Options{Handler: NewCalculatorHandler(&calculator{}), Logger: logger})
	case *addr != "":
		opts := rpchttp.Options{Logger: logger}
		if len(cors) > 0 {
			opts.CORS = &rpchttp.CORS{AllowedOrigins: cors}
		}
		err = serveHTTP(ctx, *addr, opts)
	case *call != "":
		err = demo(ctx, NewCalculatorClient(rpchttp.NewClient(*call)), "a server at "+*call)
	default:
		err = demoSubprocess(ctx)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "calculator:", err)
		os.Exit(1)
	}
}

// demoSubprocess starts this program again with --stdio and talks to it over
// the child's pipes.
func demoSubprocess(ctx context.Context) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	conn, err := runtime.DialCommand(ctx, exec.Command(exe, "--stdio"), runtime.Options{})
	if err != nil {
		return fmt.Errorf("start server: %w", err)
	}
	if err := demo(ctx, NewCalculatorClient(conn), "a subprocess over stdio"); err != nil {
		conn.Close()
		return err
	}
	return conn.Close()
}

// demo calls every method. calc is a Calculator: the generated client
// implements the interface, so this code would run unchanged on the local
// implementation.
func demo(ctx context.Context, calc Calculator, where string) error {
	fmt.Printf("Calling a Calculator in %s through the generated client:\n", where)

	sum, err := calc.Add(ctx, 2, 3)
	if err != nil {
		return err
	}
	fmt.Printf("  Add(2, 3)                 = %d\n", sum)

	q, err := calc.Divide(ctx, 10, 4)
	if err != nil {
		return err
	}
	fmt.Printf("  Divide(10, 4)             = %g\n", q)

	_, err = calc.Divide(ctx, 1, 0)
	data, ok := ErrDivisionByZero.DataOf(err) // errors.Is(err, ErrDivisionByZero) too
	if !ok {
		return fmt.Errorf("Divide(1, 0): want ErrDivisionByZero, got %v", err)
	}
	fmt.Printf("  Divide(1, 0)              : %v, dividend %g\n", err, data.Dividend)

	st, err := calc.Stats(ctx, StatsRequest{Numbers: []float64{3, 1, 4, 1, 5, 9, 2, 6}, Round: 2})
	if err != nil {
		return err
	}
	fmt.Printf("  Stats(3 1 4 1 5 9 2 6)    = count %d, sum %g, mean %g, min %g, max %g\n", st.Count, st.Sum, st.Mean, st.Min, st.Max)

	if err := calc.Remember(ctx, 42); err != nil {
		return err
	}
	fmt.Printf("  Remember(42)              : notification sent, no reply expected\n")

	// A notification is not answered, so the client cannot know when it has
	// been handled; poll briefly, as a real caller would.
	deadline := time.Now().Add(5 * time.Second)
	for {
		v, err := calc.Recall(ctx)
		if err != nil {
			return err
		}
		if v == 42 || time.Now().After(deadline) {
			fmt.Printf("  Recall()                  = %g\n", v)
			if v != 42 {
				return fmt.Errorf("Recall: got %g, want 42", v)
			}
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	return nil
}

// serveHTTP serves the calculator over HTTP on addr with opts until ctx ends.
func serveHTTP(ctx context.Context, addr string, opts rpchttp.Options) error {
	if opts.CORS != nil {
		if err := opts.CORS.Validate(); err != nil {
			return err
		}
	}
	logger := opts.Logger
	srv := &http.Server{
		Addr:              addr,
		Handler:           rpchttp.NewHandler(NewCalculatorHandler(&calculator{}), opts),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second, // headers and body; the call itself is not cut
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
	}
	rpchttp.PromptShutdown(srv) // a connection dialled and never used does not hold Shutdown
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		srv.Shutdown(shutdown)
	}()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	// The address actually bound: with port 0 the system picks one, and a
	// test reads it from this line.
	logger.Info("serving JSON-RPC over HTTP", "addr", ln.Addr().String())
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
