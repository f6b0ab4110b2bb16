package interop

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The replicas tests run the peers' clients through a round-robin proxy to
// three replicas sharing a real redis-server: ext/redis's internal/replica
// --cluster 3 starts all of that (redis-server on a free port, the three
// replica processes, the proxy) and prints the proxy's URL. Set
// INTEROP_REPLICAS_SERVER to such a command, or it is built from the
// enclosing repository. It needs redis-server on PATH.
var replicas struct {
	sync.Once
	dir  string
	argv []string
	err  error
}

// replicasArgv returns the cluster's command line.
func replicasArgv(t *testing.T) []string {
	t.Helper()
	replicas.Do(func() {
		if v := strings.TrimSpace(os.Getenv("INTEROP_REPLICAS_SERVER")); v != "" {
			replicas.argv, replicas.err = commandLine(v)
			return
		}
		if replicas.dir, replicas.err = os.MkdirTemp("", "interop-replicas-"); replicas.err != nil {
			return
		}
		bin := filepath.Join(replicas.dir, "replica")
		build := exec.Command("go", "build", "-o", bin, "./internal/replica")
		build.Dir = filepath.Join("..", "ext", "redis")
		if out, err := build.CombinedOutput(); err != nil {
			replicas.err = fmt.Errorf("building ext/redis/internal/replica (or set INTEROP_REPLICAS_SERVER): %v\n%s", err, out)
			return
		}
		replicas.argv = []string{bin, "--cluster", "3", "--http", "127.0.0.1:0"}
	})
	if replicas.err != nil {
		t.Fatal(replicas.err)
	}
	return replicas.argv
}

// removeReplicas removes the cluster binary replicasArgv built.
func removeReplicas() {
	if replicas.dir != "" {
		os.RemoveAll(replicas.dir)
	}
}

// TestGoSDKReplicas: the official Go SDK client through the proxy to three
// replicas on Redis, in its default mode (2026-07-28: each request
// anywhere; answers to elicitation and sampling in the retry; the
// subscriptions/listen stream on one replica, the change on another) and
// in a legacy session (2025-11-25: every request of the session, answers
// and notifications/cancelled included, to the next replica): tools,
// progress, cancellation, subscriptions, elicitation and sampling.
func TestGoSDKReplicas(t *testing.T) {
	srv := startHTTPServerArgv(t, replicasArgv(t))
	for _, c := range []struct{ mode, pin, want string }{
		{"default", "", "2026-07-28"},
		{"legacy", "2025-11-25", "2025-11-25"},
	} {
		t.Run(c.mode, func(t *testing.T) { goSDKReplicas(t, srv.url, c.pin, c.want) })
	}
}

type replicaAnswer struct {
	Replica   string          `json:"replica"`
	Args      json.RawMessage `json:"args"`
	N         int             `json:"n"`
	Action    string          `json:"action"`
	Content   struct{ Name string }
	Text      string `json:"text"`
	Cancelled bool   `json:"cancelled"`
}

func goSDKReplicas(t *testing.T, url, pin, want string) {
	progress := make(chan float64, 64)
	updates := make(chan string, 16)
	acks := make(chan struct{}, 16)
	client := mcp.NewClient(&mcp.Implementation{Name: "interop-go-sdk", Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
		},
		//lint:ignore SA1019 sampling is deprecated in 2026-07-28 but still served, and tested here
		CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			//lint:ignore SA1019 sampling is deprecated in 2026-07-28 but still served, and tested here
			return &mcp.CreateMessageResult{Role: "assistant", Content: &mcp.TextContent{Text: "sampled"}, Model: "m"}, nil
		},
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			progress <- req.Params.Progress
		},
		ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
			updates <- req.Params.URI
		},
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			updates <- "notifications/tools/list_changed"
		},
		//lint:ignore SA1019 logging is deprecated in 2026-07-28 but still served in legacy sessions, and tested here
		LoggingMessageHandler: func(_ context.Context, req *mcp.LoggingMessageRequest) {
			var d struct{ Text string }
			_ = remarshal(req.Params.Data, &d)
			updates <- "log:" + d.Text
		},
	})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	wire := newHTTPWire(t)
	tr := &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: ackTap{acks, wire}}}
	cs, err := client.Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: pin})
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer cs.Close() // after a failure; the test closes it itself
	if got := cs.InitializeResult().ProtocolVersion; got != want {
		t.Fatalf("protocol version %q, want %q", got, want)
	}
	modern := want == "2026-07-28"
	if modern {
		// With a ToolListChangedHandler the SDK listens for list changes
		// (subscriptions/listen) from the start.
		waitAck(t, acks)
	}
	call := func(cctx context.Context, name string, args any, token any) (replicaAnswer, error) {
		p := &mcp.CallToolParams{Name: name, Arguments: args}
		if token != nil {
			p.SetProgressToken(token)
		}
		var a replicaAnswer
		res, err := cs.CallTool(cctx, p)
		if err != nil {
			return a, err
		}
		if res.IsError {
			return a, fmt.Errorf("%s: isError: %s", name, brief(res.Content))
		}
		return a, remarshal(res.StructuredContent, &a)
	}

	seen := map[string]bool{}
	for k := range 3 {
		a, err := call(ctx, "echo", map[string]int{"k": k}, nil)
		if err != nil || string(a.Args) != fmt.Sprintf(`{"k":%d}`, k) {
			t.Fatalf("echo %d: %+v, %v", k, a, err)
		}
		seen[a.Replica] = true
	}
	if len(seen) != 3 {
		t.Errorf("three calls in a row ran on replicas %v, want all three", seen)
	}
	for k := range 3 {
		a, err := call(ctx, "count", map[string]int{"n": 4}, fmt.Sprintf("count-%d", k))
		if err != nil || a.N != 4 {
			t.Fatalf("count %d: %+v, %v", k, a, err)
		}
		var got []float64
		for len(got) < 4 {
			select {
			case p := <-progress:
				got = append(got, p)
			case <-time.After(10 * time.Second):
				t.Fatalf("count %d: progress %v, want 1 to 4", k, got)
			}
		}
		if fmt.Sprint(got) != "[1 2 3 4]" {
			t.Fatalf("count %d: progress %v", k, got)
		}
		if a, err := call(ctx, "ask", nil, nil); err != nil || a.Action != "accept" || a.Content.Name != "Ada" {
			t.Fatalf("ask %d: %+v, %v", k, a, err)
		}
		if a, err := call(ctx, "sample", nil, nil); err != nil || a.Text != "sampled" {
			t.Fatalf("sample %d: %+v, %v", k, a, err)
		}
	}

	// In 2026-07-28 the SDK's Subscribe opens a subscriptions/listen
	// stream that runs until Unsubscribe, live once the server has
	// acknowledged it; in a legacy session it is resources/subscribe.
	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "test://watched"}); err != nil {
		t.Fatalf("subscribe: %v", err)
	}
	if modern {
		waitAck(t, acks)
	}
	// What the calls on each replica change reaches the client's stream
	// (legacy: the standalone GET; 2026-07-28: the listen streams, which
	// carry no log messages), wherever that stream is.
	hear := func(what, want string) {
		t.Helper()
		select {
		case got := <-updates:
			if got != want {
				t.Fatalf("%s: heard %q, want %q", what, got, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: heard nothing within 10s, want %q", what, want)
		}
	}
	for k := range 3 {
		if _, err := call(ctx, "touch", nil, nil); err != nil {
			t.Fatal(err)
		}
		hear(fmt.Sprintf("touch %d", k), "test://watched")
		if _, err := call(ctx, "grow", map[string]string{"tag": rand.Text()}, nil); err != nil {
			t.Fatal(err)
		}
		hear(fmt.Sprintf("grow %d", k), "notifications/tools/list_changed")
		if !modern {
			text := rand.Text()
			if _, err := call(ctx, "announce", map[string]string{"text": text}, nil); err != nil {
				t.Fatal(err)
			}
			hear(fmt.Sprintf("announce %d", k), "log:"+text)
		}
	}
	if err := cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: "test://watched"}); err != nil {
		t.Errorf("unsubscribe: %v", err)
	}

	// Cancellation: the SDK gives up once the call has started; the
	// replica running the call sees its context end and says so.
	for k := range 3 {
		tag := rand.Text()
		cctx, stop := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() {
			_, err := call(cctx, "block", map[string]string{"tag": tag}, "block-"+tag)
			done <- err
		}()
		select {
		case <-progress:
		case <-time.After(10 * time.Second):
			t.Fatalf("block %d: no progress", k)
		}
		stop()
		if err := <-done; err == nil {
			t.Fatalf("block %d: a result after the cancellation", k)
		}
		if a, err := call(ctx, "cancelled", map[string]string{"tag": tag}, nil); err != nil || !a.Cancelled {
			t.Fatalf("block %d: the call was not cancelled on its replica: %+v, %v", k, a, err)
		}
	}

	// A legacy session ends with one DELETE, and its id then gets 404 on
	// the next replica too.
	if err := cs.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
	if modern {
		checkNoSessions(t, wire)
	} else {
		checkSessionDeleted(t, wire, url)
	}
}

// waitAck waits for a notifications/subscriptions/acknowledged.
func waitAck(t *testing.T, acks <-chan struct{}) {
	t.Helper()
	select {
	case <-acks:
	case <-time.After(10 * time.Second):
		t.Fatal("no notifications/subscriptions/acknowledged within 10s")
	}
}

// ackTap is an http.RoundTripper on inner that signals acks each time a
// response body it reads carries notifications/subscriptions/acknowledged.
type ackTap struct {
	acks  chan<- struct{}
	inner http.RoundTripper
}

func (a ackTap) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := a.inner.RoundTrip(req)
	if err == nil {
		resp.Body = &ackBody{ReadCloser: resp.Body, acks: a.acks}
	}
	return resp, err
}

type ackBody struct {
	io.ReadCloser
	acks chan<- struct{}
	tail []byte
}

var ackMethod = []byte("notifications/subscriptions/acknowledged")

func (b *ackBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	buf := append(b.tail, p[:n]...)
	for i := bytes.Index(buf, ackMethod); i >= 0; i = bytes.Index(buf, ackMethod) {
		b.acks <- struct{}{}
		buf = buf[i+len(ackMethod):]
	}
	if keep := len(ackMethod) - 1; len(buf) > keep {
		buf = buf[len(buf)-keep:]
	}
	b.tail = append(b.tail[:0], buf...)
	return n, err
}
