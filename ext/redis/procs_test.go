package redis_test

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/rpcgen/rpcgen/ext/redis/internal/redistest"
	"github.com/rpcgen/rpcgen/ext/redis/internal/rrproxy"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttpclient"
)

// procCluster is three replica processes (internal/replica) on one Redis,
// behind a round-robin reverse proxy (internal/rrproxy) that sends each
// request to the next live replica.
type procCluster struct {
	URL     string
	Prefix  string // the replicas' key prefix
	procs   []*exec.Cmd
	proxy   *rrproxy.Proxy
	targets []*url.URL
}

var buildOnce struct {
	sync.Once
	dir, bin string
	err      error
}

// TestMain removes the replica binary that the tests built.
func TestMain(m *testing.M) {
	code := m.Run()
	if buildOnce.dir != "" {
		os.RemoveAll(buildOnce.dir)
	}
	os.Exit(code)
}

// replicaBinary builds internal/replica once per test binary.
func replicaBinary(t *testing.T) string {
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "replica-")
		if err != nil {
			buildOnce.err = err
			return
		}
		buildOnce.dir, buildOnce.bin = dir, filepath.Join(dir, "replica")
		out, err := exec.Command("go", "build", "-o", buildOnce.bin, "./internal/replica").CombinedOutput()
		if err != nil {
			buildOnce.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildOnce.err != nil {
		t.Fatal(buildOnce.err)
	}
	return buildOnce.bin
}

// startProcs starts three replica processes on rs, with one key prefix and
// one 2026-07-28 state key, each stopped (SIGTERM, then waited for) when
// the test ends, and the proxy in front of them.
func startProcs(t *testing.T, rs *redistest.Server) *procCluster {
	t.Helper()
	bin := replicaBinary(t)
	prefix := "procs:" + rand.Text()[:8] + ":"
	key := make([]byte, 32)
	_, _ = rand.Read(key)
	c := &procCluster{Prefix: prefix}
	var targets []*url.URL
	for i := range 3 {
		cmd := exec.Command(bin, "--redis", rs.URL(), "--prefix", prefix, "--name", fmt.Sprint(i), "--state-key", hex.EncodeToString(key))
		cmd.Stderr = os.Stderr
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			_ = cmd.Process.Signal(syscall.SIGTERM)
			_ = cmd.Wait()
		})
		line, err := bufio.NewReader(out).ReadString('\n')
		if err != nil {
			t.Fatalf("replica %d printed no URL: %v", i, err)
		}
		u, err := url.Parse(strings.TrimSpace(line))
		if err != nil {
			t.Fatal(err)
		}
		c.procs = append(c.procs, cmd)
		targets = append(targets, u)
	}
	c.targets = targets
	c.proxy = rrproxy.New(targets, log.New(os.Stderr, "proxy: ", 0))
	ts := httptest.NewServer(c.proxy)
	c.URL = ts.URL + "/mcp"
	t.Cleanup(func() { ts.CloseClientConnections(); ts.Close(); c.proxy.Close() })
	return c
}

// kill takes replica i out of the proxy and kills it (SIGKILL).
func (c *procCluster) kill(t *testing.T, i int) {
	t.Helper()
	c.proxy.Down(i)
	if err := c.procs[i].Process.Kill(); err != nil {
		t.Fatal(err)
	}
}

// connect opens a legacy session (2025-11-25) through the proxy, or a
// 2026-07-28 client when version says so.
func connect(t *testing.T, u string, opts mcpclient.Options) *mcpclient.Client {
	t.Helper()
	if opts.ProtocolVersion == "" {
		opts.ProtocolVersion = mcp.Version20251125
	}
	cl, err := mcphttpclient.Connect(context.Background(), u, &mcphttpclient.Options{MCP: opts})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cl.Close() })
	return cl
}
