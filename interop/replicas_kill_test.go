package interop

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// cluster is a running replicas command (see replicasArgv).
type cluster struct {
	url    string
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stderr chan string // its stderr, line by line
}

// startCluster starts the replicas command, with extra arguments (such as
// --sentinel), reads its URL, and stops it with SIGTERM when the test ends
// (it must then exit with status 0).
func startCluster(t *testing.T, extra ...string) *cluster {
	t.Helper()
	argv := append(replicasArgv(t), extra...)
	c := &cluster{cmd: exec.Command(argv[0], argv[1:]...), stderr: make(chan string, 1024)}
	stdout, err := c.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if c.stdin, err = c.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stderr, err := c.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var lines sync.WaitGroup
	lines.Go(func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			select {
			case c.stderr <- sc.Text():
			default: // nobody waits for it
			}
		}
	})
	t.Cleanup(func() {
		_ = c.cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { lines.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Errorf("the cluster did not exit within 10s of SIGTERM")
			_ = c.cmd.Process.Kill()
		}
		if err := c.cmd.Wait(); err != nil {
			t.Errorf("the cluster's exit after SIGTERM: %v, want status 0", err)
		}
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if c.url = strings.TrimSpace(line); err != nil || !strings.HasPrefix(c.url, "http://") {
		t.Fatalf("the cluster printed no URL: %q, %v", line, err)
	}
	return c
}

// command sends the cluster a command on its stdin ("restart", "hold",
// "failover") and waits until it says want on stderr.
func (c *cluster) command(t *testing.T, cmd, want string) {
	t.Helper()
	for len(c.stderr) > 0 { // room for the answer: a full channel drops lines
		<-c.stderr
	}
	if _, err := io.WriteString(c.stdin, cmd+"\n"); err != nil {
		t.Fatal(err)
	}
	for timeout := time.After(60 * time.Second); ; {
		select {
		case line := <-c.stderr:
			if line == want {
				return
			}
			if strings.HasPrefix(line, "cluster: "+cmd+" failed") {
				t.Fatal(line)
			}
		case <-timeout:
			t.Fatalf("the cluster did not say %q within 60s", want)
		}
	}
}

var killedLine = regexp.MustCompile(`cluster: killed replica (\d+) with (\d+) streams open`)

// kill has the cluster kill (SIGKILL) the replica with the most streams
// open, and returns how many were.
func (c *cluster) kill(t *testing.T) int {
	t.Helper()
	if err := c.cmd.Process.Signal(syscall.SIGUSR1); err != nil {
		t.Fatal(err)
	}
	timeout := time.After(20 * time.Second)
	for {
		select {
		case line := <-c.stderr:
			if m := killedLine.FindStringSubmatch(line); m != nil {
				var n int
				fmt.Sscan(m[2], &n)
				return n
			}
		case <-timeout:
			t.Fatal("the cluster did not say it killed a replica within 20s")
		}
	}
}

// TestGoSDKReplicaKilled: the Go SDK client in a legacy session, its
// standalone stream on the replica that is then killed (SIGKILL); log
// messages sent just before the kill and while the stream is down all
// arrive, each once, the stream resumed on another replica with
// Last-Event-ID.
func TestGoSDKReplicaKilled(t *testing.T) {
	c := startCluster(t)
	var mu sync.Mutex
	heard := map[string]int{}
	texts := make(chan string, 64)
	client := mcp.NewClient(&mcp.Implementation{Name: "interop-go-sdk", Version: "1"}, &mcp.ClientOptions{
		//lint:ignore SA1019 logging is deprecated in 2026-07-28 but still served in legacy sessions, and tested here
		LoggingMessageHandler: func(_ context.Context, req *mcp.LoggingMessageRequest) {
			var d struct{ Text string }
			_ = remarshal(req.Params.Data, &d)
			mu.Lock()
			heard[d.Text]++
			mu.Unlock()
			texts <- d.Text
		},
	})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	wire := newHTTPWire(t)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: c.url, HTTPClient: wire.client()},
		&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer cs.Close()
	announce := func(text string, wait bool) {
		t.Helper()
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "announce", Arguments: map[string]string{"text": text}}); err != nil {
			t.Fatalf("announce %s: %v", text, err)
		}
		for timeout := time.After(20 * time.Second); wait; {
			select {
			case got := <-texts:
				wait = got != text
			case <-timeout:
				t.Fatalf("%s not heard within 20s", text)
			}
		}
	}
	announce("ready", true) // the standalone stream is open
	// The kill follows the last answer at once: the messages a call makes
	// are stored before its answer.
	for k := range 5 {
		announce(fmt.Sprintf("m%d", k), false)
	}
	if n := c.kill(t); n != 1 {
		t.Fatalf("the killed replica had %d streams open, want the client's standalone stream", n)
	}
	for k := 5; k < 10; k++ {
		announce(fmt.Sprintf("m%d", k), false)
	}
	announce("end", true)
	mu.Lock()
	for k := range 10 {
		if n := heard[fmt.Sprintf("m%d", k)]; n != 1 {
			t.Errorf("m%d heard %d times, want once", k, n)
		}
	}
	mu.Unlock()
	var resumed bool
	for _, e := range wire.all() {
		resumed = resumed || e.Method == http.MethodGet && e.LastEvent != "" && e.Status == http.StatusOK
	}
	if !resumed {
		t.Errorf("no GET with Last-Event-ID answered 200 after the kill: %v", wire.all())
	}
}
