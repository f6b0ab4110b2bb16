package rpchttp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rpcgen/rpcgen/internal/rpctest"
	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/rpchttp"
)

// TestSlowBodies: 2,000 connections that send the start of a body and stall
// are each answered 408 with a JSON-RPC error and closed once the body read
// deadline (30 s by default) has passed, in virtual time; a call that takes
// a minute after its body arrived is not cut.
func TestSlowBodies(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := runtime.HandlerFunc(func(context.Context, *runtime.Request) (json.RawMessage, error) {
			time.Sleep(time.Minute)
			return json.RawMessage(`"done"`), nil
		})
		ts := rpctest.NewPipeServer(t, rpchttp.NewHandler(h, rpchttp.Options{}), nil)
		dial := ts.Client().Transport.(*http.Transport).DialContext
		const conns = 2000
		start := time.Now()
		errs := make(chan error, conns)
		for range conns {
			go func() {
				c, err := dial(context.Background(), "tcp", "")
				if err != nil {
					errs <- err
					return
				}
				defer c.Close()
				fmt.Fprintf(c, "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"jsonrpc\"")
				br := bufio.NewReader(c)
				resp, err := http.ReadResponse(br, nil)
				if err != nil {
					errs <- err
					return
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				_, eof := br.ReadByte()
				switch at := time.Since(start); {
				case resp.StatusCode != http.StatusRequestTimeout || !strings.Contains(string(b), `"code":-32600`):
					errs <- fmt.Errorf("a stalled body: %d %s", resp.StatusCode, b)
				case eof != io.EOF:
					errs <- fmt.Errorf("the connection of a stalled body stays open")
				case at < 30*time.Second || at > 31*time.Second:
					errs <- fmt.Errorf("a stalled body cut after %v, want 30s", at)
				default:
					errs <- nil
				}
			}()
		}
		for range conns {
			if err := <-errs; err != nil {
				t.Fatal(err)
			}
		}
		client := rpchttp.NewClient(ts.URL)
		client.Client = ts.Client()
		var got string
		if err := client.Call(context.Background(), "slow", nil, &got); err != nil || got != "done" {
			t.Fatalf("a call of a minute: %q, %v", got, err)
		}
	})
}
