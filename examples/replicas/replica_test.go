package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/ext/redis/redistest"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttp/replicatest"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttpclient"
)

// serveEnv makes the test binary run the program itself (a replica).
const serveEnv = "REPLICAS_EXAMPLE_SERVE"

func TestMain(m *testing.M) {
	if os.Getenv(serveEnv) == "1" {
		ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
		code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
		stop()
		os.Exit(code)
	}
	os.Exit(m.Run())
}

// replica is one replica process.
type replica struct {
	URL    string // its MCP endpoint
	Base   string // scheme and host
	cmd    *exec.Cmd
	logs   *testLog
	exited chan struct{} // closed when the process has exited
}

// stop sends the replica SIGTERM and waits for it to exit.
func (r *replica) stop(t *testing.T) {
	t.Helper()
	_ = r.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-r.exited:
	case <-time.After(30 * time.Second):
		t.Fatal("a replica did not stop within 30s of SIGTERM")
	}
	if !r.cmd.ProcessState.Success() {
		t.Errorf("the replica exited with %v", r.cmd.ProcessState)
	}
}

// startReplica runs the program as a process with args on a free port and
// returns its endpoint once it listens; the test's end stops it (SIGTERM).
func startReplica(t *testing.T, args ...string) *replica {
	t.Helper()
	return startReplicaEnv(t, nil, args...)
}

// startReplicaEnv is startReplica with env added to the process's
// environment.
func startReplicaEnv(t *testing.T, env []string, args ...string) *replica {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, append([]string{"--http", "127.0.0.1:0"}, args...)...)
	cmd.Env = append(append(os.Environ(), env...), serveEnv+"=1")
	logs := &testLog{t: t, name: args[len(args)-1], lines: make(chan string, 256)}
	cmd.Stderr = logs
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(15 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
			t.Error("a replica did not stop within 15s of SIGTERM")
		}
	})
	line := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		if sc.Scan() {
			line <- sc.Text()
		}
		close(line)
		_, _ = io.Copy(io.Discard, out)
		_ = cmd.Wait()
		close(exited)
	}()
	select {
	case u, ok := <-line:
		if !ok || !strings.HasSuffix(u, "/mcp") {
			t.Fatalf("the replica printed %q, not its endpoint", u)
		}
		return &replica{URL: u, Base: strings.TrimSuffix(u, "/mcp"), cmd: cmd, logs: logs, exited: exited}
	case <-time.After(30 * time.Second):
		t.Fatal("the replica did not say it listens within 30s")
		return nil
	}
}

// testLog passes a replica's stderr to the test log, and its lines to
// lines (dropped when nobody reads them).
type testLog struct {
	t     *testing.T
	name  string
	lines chan string
}

func (l *testLog) Write(p []byte) (int, error) {
	for _, s := range strings.Split(strings.TrimRight(string(p), "\n"), "\n") {
		l.t.Logf("%s: %s", l.name, s)
		select {
		case l.lines <- s:
		default:
		}
	}
	return len(p), nil
}

// waitLog waits until the replica logs a line with every one of parts.
func (r *replica) waitLog(t *testing.T, parts ...string) {
	t.Helper()
	timeout := time.After(30 * time.Second)
	for {
		select {
		case line := <-r.logs.lines:
			all := true
			for _, p := range parts {
				all = all && strings.Contains(line, p)
			}
			if all {
				return
			}
		case <-timeout:
			t.Fatalf("%s did not log %q within 30s", r.logs.name, parts)
		}
	}
}

// roundRobin is a reverse proxy that sends each request to the next of
// urls, as a load balancer does.
func roundRobin(t *testing.T, reps ...*replica) (endpoint string, served []*atomic.Int64) {
	var next atomic.Int64
	for range reps {
		served = append(served, new(atomic.Int64))
	}
	proxy := httptest.NewServer(replicatest.BufferBodies(&httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			i := int(next.Add(1)-1) % len(reps)
			served[i].Add(1)
			u, _ := url.Parse(reps[i].Base)
			pr.SetURL(u)
		},
		FlushInterval: -1,
	}))
	t.Cleanup(func() { proxy.CloseClientConnections(); proxy.Close() })
	return proxy.URL + "/mcp", served
}

// status GETs base+path and returns the status code.
func status(t *testing.T, base, path string) int {
	t.Helper()
	resp, err := http.Get(base + path)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestTwoReplicasOnRedis runs two replica processes on a real
// redis-server behind a round-robin proxy: rpcgen's own client, in a
// 2025-11-25 session, adds notes through the proxy, so that its requests
// alternate between the replicas, and reads them back; every note is
// found wherever it was stored.
func TestTwoReplicasOnRedis(t *testing.T) {
	rs := redistest.Start(t)
	prefix := "ex:" + rand.Text()[:8] + ":"
	a := startReplica(t, "--redis", rs.URL(), "--prefix", prefix, "--name", "a")
	b := startReplica(t, "--redis", rs.URL(), "--prefix", prefix, "--name", "b")
	for _, r := range []*replica{a, b} {
		if st := status(t, r.Base, "/readyz"); st != http.StatusOK {
			t.Fatalf("readyz of %s: %d", r.Base, st)
		}
	}
	endpoint, served := roundRobin(t, a, b)
	ctx := context.Background()
	client, err := mcphttpclient.Connect(ctx, endpoint, &mcphttpclient.Options{MCP: mcpclient.Options{ProtocolVersion: mcp.Version20251125}})
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	notes := NewNotesMCPClient(client)
	by := map[string]int{}
	var added []Note
	for k := range 6 {
		n, err := notes.AddNote(ctx, fmt.Sprintf("note %d", k))
		if err != nil {
			t.Fatalf("AddNote %d: %v", k, err)
		}
		by[n.Replica]++
		added = append(added, n)
	}
	for _, n := range added {
		got, err := notes.GetNote(ctx, n.ID)
		if err != nil || got != n {
			t.Fatalf("GetNote(%s) = %+v, %v; want %+v", n.ID, got, err, n)
		}
	}
	if by["a"] == 0 || by["b"] == 0 {
		t.Errorf("the session's notes were all stored on one replica: %v", by)
	}
	all, err := notes.ListNotes(ctx)
	if err != nil || len(all) != 6 || all[0].Text != "note 0" || all[5].Text != "note 5" {
		t.Fatalf("ListNotes = %+v, %v", all, err)
	}
	if served[0].Load() < 3 || served[1].Load() < 3 {
		t.Errorf("the proxy sent %d and %d requests to the replicas, want both several", served[0].Load(), served[1].Load())
	}
}
