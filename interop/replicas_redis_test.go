package interop

import (
	"context"
	"net/http"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// redisToggle has the cluster pause (SIGSTOP) or resume redis-server and
// waits until it says so.
func (c *cluster) redisToggle(t *testing.T, want string) {
	t.Helper()
	for len(c.stderr) > 0 { // room for the answer: a full channel drops lines
		<-c.stderr
	}
	if err := c.cmd.Process.Signal(syscall.SIGUSR2); err != nil {
		t.Fatal(err)
	}
	for timeout := time.After(20 * time.Second); ; {
		select {
		case line := <-c.stderr:
			if line == want {
				return
			}
		case <-timeout:
			t.Fatalf("the cluster did not say %q within 20s", want)
		}
	}
}

// TestGoSDKReplicaRedisDown: the Go SDK client in a legacy session through
// the proxy; with Redis hung (SIGSTOP), its call fails with an error, the
// replica's 503, within the store timeout (2s) and some slack, not a hang;
// once Redis answers again, a new session works.
func TestGoSDKReplicaRedisDown(t *testing.T) {
	c := startCluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "interop-go-sdk", Version: "1"}, nil)
	connect := func() (*mcp.ClientSession, *httpWire) {
		t.Helper()
		wire := newHTTPWire(t)
		cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: c.url, HTTPClient: wire.client()},
			&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		if err != nil {
			t.Fatalf("connect: %v", err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs, wire
	}
	call := func(cs *mcp.ClientSession) error {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"k": 1}})
		return err
	}
	cs, wire := connect()
	if err := call(cs); err != nil {
		t.Fatalf("echo before the fault: %v", err)
	}

	c.redisToggle(t, "cluster: redis paused")
	start := time.Now()
	err := call(cs)
	took := time.Since(start)
	if err == nil {
		t.Fatal("echo with Redis hung succeeded")
	}
	t.Logf("with Redis hung: %v after %v", err, took)
	if took > 2*time.Second+3*time.Second {
		t.Errorf("the error took %v, want the store timeout (2s) and slack", took)
	}
	var got503 bool
	for _, e := range wire.all() {
		got503 = got503 || e.Method == http.MethodPost && e.Status == http.StatusServiceUnavailable
	}
	if !got503 {
		t.Errorf("no POST answered 503: %v", wire.all())
	}

	c.redisToggle(t, "cluster: redis resumed")
	cs2, _ := connect()
	for k := range 3 { // each to the next replica
		if err := call(cs2); err != nil {
			t.Fatalf("echo %d in a new session after Redis came back: %v", k, err)
		}
	}
}
