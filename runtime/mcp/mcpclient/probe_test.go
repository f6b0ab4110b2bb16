package mcpclient_test

import (
	"bytes"
	"context"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
)

// On a stream a dual-era client does not take silence for a legacy server:
// after ProbeTimeout it pings, and only a server that answers the ping and
// not server/discover is legacy. These tests run in a synctest bubble, so
// the server's delays are the bubble's time and the outcome never depends
// on the machine's load.

// TestClientProbeSlowServer: a dual-era server that reads nothing for five
// ProbeTimeouts (starting, or on a busy machine) then answers server/discover
// and the ping, in order, is spoken to in 2026-07-28. The client used to
// send initialize after one ProbeTimeout and settle on a legacy session.
func TestClientProbeSlowServer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const probe = time.Second
		legacy := clientLegacyScript(mcp.Version20251125, nil)
		var busy sync.Once
		peer, f := newClientFakePeer(t, func(p *clientFakePeer, m clientFakeMsg) {
			busy.Do(func() { time.Sleep(5 * probe) })
			if m.Method == "server/discover" {
				p.reply(m, clientDiscoverResult)
				return
			}
			legacy(p, m)
		})
		c, err := mcpclient.Connect(context.Background(), f, mcpclient.Options{ProbeTimeout: probe})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if !c.Modern() || c.ProtocolVersion() != mcp.Version20260728 {
			t.Errorf("negotiated %q (modern %v), want %q: a slow server is not a legacy one", c.ProtocolVersion(), c.Modern(), mcp.Version20260728)
		}
		synctest.Wait() // the peer has read all the client sent
		if got := peer.methods(); !slices.Equal(got, []string{"server/discover", "ping"}) {
			t.Errorf("methods: %v, want server/discover and the ping of a client that heard nothing", got)
		}
	})
}

// TestClientProbeSilentServer: a server that answers neither server/discover
// nor ping (but does answer initialize) gets initialize after ten
// ProbeTimeouts in all, and the client says so in its log.
func TestClientProbeSilentServer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const probe = time.Second
		legacy := clientLegacyScript(mcp.Version20251125, nil)
		peer, f := newClientFakePeer(t, func(p *clientFakePeer, m clientFakeMsg) {
			if m.Method == "server/discover" || m.Method == "ping" {
				return
			}
			legacy(p, m)
		})
		var log bytes.Buffer
		start := time.Now()
		c, err := mcpclient.Connect(context.Background(), f, mcpclient.Options{ProbeTimeout: probe, Logger: slog.New(slog.NewTextHandler(&log, nil))})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if took := time.Since(start); took != 10*probe {
			t.Errorf("initialize after %v, want 10 ProbeTimeouts (%v)", took, 10*probe)
		}
		if c.Modern() || c.ProtocolVersion() != mcp.Version20251125 {
			t.Errorf("negotiated %q, want the legacy server's %q", c.ProtocolVersion(), mcp.Version20251125)
		}
		synctest.Wait()
		if got := peer.methods(); !slices.Equal(got, []string{"server/discover", "ping", "initialize", "notifications/initialized"}) {
			t.Errorf("methods: %v", got)
		}
		if !strings.Contains(log.String(), "level=WARN") || !strings.Contains(log.String(), "answered neither server/discover nor ping") {
			t.Errorf("no warning in the log:\n%s", log.String())
		}
	})
}

// TestClientProbeContextEnds: Connect's context bounds the probe; its end
// is Connect's error, not a fallback.
func TestClientProbeContextEnds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, f := newClientFakePeer(t, func(p *clientFakePeer, m clientFakeMsg) {})
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		_, err := mcpclient.Connect(ctx, f, mcpclient.Options{ProbeTimeout: time.Second})
		if err == nil || ctx.Err() == nil {
			t.Fatalf("Connect = %v before its context ended", err)
		}
		if !strings.Contains(err.Error(), "context deadline exceeded") {
			t.Errorf("Connect: %v, want the context's end", err)
		}
	})
}
