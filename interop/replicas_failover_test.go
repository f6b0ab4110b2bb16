package interop

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestGoSDKReplicaFailover: the Go SDK client in a legacy session through
// the proxy to three replicas on Redis Sentinel (a primary, a replica,
// three Sentinels). Its standalone stream has delivered a log message the
// replica never got (replication held back, as when a primary dies before
// replicating its last writes); the Sentinels fail over to the replica.
// The client lives on: its stream resumes (no 400 "unknown Last-Event-ID",
// which the SDK takes as fatal), it hears what is logged after the
// failover, and its calls work.
func TestGoSDKReplicaFailover(t *testing.T) {
	c := startCluster(t, "--sentinel")
	texts := make(chan string, 64)
	client := mcp.NewClient(&mcp.Implementation{Name: "interop-go-sdk", Version: "1"}, &mcp.ClientOptions{
		//lint:ignore SA1019 logging is deprecated in 2026-07-28 but still served in legacy sessions, and tested here
		LoggingMessageHandler: func(_ context.Context, req *mcp.LoggingMessageRequest) {
			var d struct{ Text string }
			_ = remarshal(req.Params.Data, &d)
			texts <- d.Text
		},
	})
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	wire := newHTTPWire(t)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: c.url, HTTPClient: wire.client()},
		&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer cs.Close()
	announce := func(text string) error {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "announce", Arguments: map[string]string{"text": text}})
		return err
	}
	heard := func(text string, within time.Duration) bool {
		for timeout := time.After(within); ; {
			select {
			case got := <-texts:
				if got == text {
					return true
				}
			case <-timeout:
				return false
			}
		}
	}
	// The standalone stream opens after Connect: announce until heard.
	for k := 0; ; k++ {
		if err := announce(fmt.Sprintf("ready%d", k)); err != nil {
			t.Fatalf("announce: %v", err)
		}
		if heard(fmt.Sprintf("ready%d", k), 2*time.Second) {
			break
		}
		if k == 10 {
			t.Fatal("the standalone stream did not open")
		}
	}
	c.command(t, "hold", "cluster: replication held")
	if err := announce("held"); err != nil {
		t.Fatalf("announce held: %v", err)
	}
	if !heard("held", 20*time.Second) {
		t.Fatal("held not heard")
	}
	c.command(t, "failover", "cluster: failed over")
	// Calls may fail while the replicas move to the new primary (503);
	// one announcement after another until one is heard.
	deadline := time.Now().Add(45 * time.Second)
	for k := 0; ; k++ {
		text := fmt.Sprintf("after%d", k)
		err := announce(text)
		if err == nil && heard(text, 3*time.Second) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("nothing announced after the failover was heard within 45s (last error: %v)", err)
		}
	}
	for k := range 3 { // each to the next replica
		if err := announce(fmt.Sprintf("again%d", k)); err != nil {
			t.Fatalf("a call after the failover: %v", err)
		}
	}
	for _, e := range wire.all() {
		if e.Method == http.MethodGet && e.LastEvent != "" && e.Status >= 400 {
			t.Errorf("a resume was refused: %s", e)
		}
	}
}
