package runtime_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/internal/rpctest"
	"github.com/rpcgen/rpcgen/runtime"
)

const stdioServerEnv = "RPCGEN_RUNTIME_TEST_STDIO_SERVER"

// TestMain turns the test binary into a stdio JSON-RPC server when re-executed by the
// DialCommand tests.
func TestMain(m *testing.M) {
	if framing := os.Getenv(stdioServerEnv); framing != "" {
		os.Exit(stdioServer(framing))
	}
	os.Exit(m.Run())
}

// stdioServer serves specHandler plus "exit_with" (the exit code to use once stdin
// closes) on stdin and stdout. With framing "lines+ctx" it serves under a context
// that "stop" cancels, and then exits with code 4 with stdin still open.
func stdioServer(framing string) int {
	var code atomic.Int64
	ctx, stop := context.Background(), context.CancelFunc(func() {})
	if framing == "lines+ctx" {
		ctx, stop = context.WithCancel(ctx)
	}
	defer stop()
	h := runtime.HandlerFunc(func(ctx context.Context, req *runtime.Request) (json.RawMessage, error) {
		if req.Method == "stop" {
			stop()
			return runtime.EncodeResult(true)
		}
		if req.Method == "exit_with" {
			var n int64
			if err := runtime.DecodeParams(req.Params, nil, &n); err != nil {
				return nil, err
			}
			code.Store(n)
			return runtime.EncodeResult(true)
		}
		return specHandler.ServeRPC(ctx, req)
	})
	opts := runtime.Options{Handler: h}
	if framing == "headers" {
		opts.Framing = runtime.ContentLength
	}
	if err := runtime.ServeStdio(ctx, opts); err != nil {
		if errors.Is(err, context.Canceled) {
			return 4
		}
		fmt.Fprintln(os.Stderr, "serve:", err)
		return 1
	}
	return int(code.Load())
}

func TestDialCommand(t *testing.T) {
	for _, tc := range []struct {
		env     string
		framing runtime.Framing
	}{{"lines", runtime.NewlineDelimited}, {"headers", runtime.ContentLength}, {"lines+ctx", runtime.NewlineDelimited}} {
		t.Run(tc.env, func(t *testing.T) {
			rpctest.CheckLeaks(t)
			dial := func() *runtime.Conn {
				cmd := exec.Command(os.Args[0], "-test.run=^$")
				cmd.Env = append(os.Environ(), stdioServerEnv+"="+tc.env, "GORACE=atexit_sleep_ms=0")
				c, err := runtime.DialCommand(context.Background(), cmd, runtime.Options{Framing: tc.framing})
				if err != nil {
					t.Fatal(err)
				}
				return c
			}
			ctx := context.Background()

			c := dial()
			var diff int
			if err := c.Call(ctx, "subtract", map[string]int{"minuend": 42, "subtrahend": 23}, &diff); err != nil || diff != 19 {
				t.Fatalf("subtract: %d, %v", diff, err)
			}
			rpctest.WantError(t, c.Call(ctx, "nope", nil, nil), runtime.CodeMethodNotFound)
			if err := c.Close(); err != nil {
				t.Errorf("Close after a clean exit: %v", err)
			}

			c = dial()
			if err := c.Call(ctx, "exit_with", []int{3}, nil); err != nil {
				t.Fatal(err)
			}
			err := c.Close()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 3 {
				t.Errorf("Close: %v, want exit status 3", err)
			}
			if tc.env != "lines+ctx" {
				return
			}
			// ServeStdio returns when its context ends, the reader still blocked on stdin.
			c = dial()
			if err := c.Call(ctx, "stop", nil, nil); err != nil {
				t.Fatal(err)
			}
			select {
			case <-c.Done():
			case <-time.After(10 * time.Second):
				t.Fatal("the server did not exit once its context ended")
			}
			if err := c.Close(); !errors.As(err, &exit) || exit.ExitCode() != 4 {
				t.Errorf("Close: %v, want exit status 4", err)
			}
		})
	}
}
