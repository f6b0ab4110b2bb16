package redis_test

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/ext/redis/internal/redistest"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
)

// TestProcsOwnClient: rpcgen's own client, through the proxy to three
// replica processes, in a legacy session (each request to the next
// replica) and in 2026-07-28: tools, progress, cancellation,
// subscriptions, elicitation and sampling.
func TestProcsOwnClient(t *testing.T) {
	rs := redistest.Start(t)
	c := startProcs(t, rs)
	for _, version := range []string{mcp.Version20251125, mcp.Version20260728} {
		t.Run(version, func(t *testing.T) { ownClient(t, c, version) })
	}
}

func ownClient(t *testing.T, c *procCluster, version string) {
	updates := make(chan string, 16)
	cl := connect(t, c.URL, mcpclient.Options{ProtocolVersion: version,
		OnElicit: func(_ context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: json.RawMessage(`{"name":"Ada"}`)}, nil
		},
		OnSample: func(_ context.Context, p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
			return &mcp.CreateMessageResult{Role: "assistant", Content: mcp.TextContent("sampled"), Model: "m"}, nil
		},
		OnResourceUpdated: func(uri string) { updates <- uri },
		OnListChanged:     func(method string) { updates <- method },
		OnLog: func(m mcp.LogMessage) {
			var d struct{ Text string }
			_ = json.Unmarshal(m.Data, &d)
			updates <- "log:" + d.Text
		},
	})
	if got := cl.ProtocolVersion(); got != version {
		t.Fatalf("protocol version %q, want %q", got, version)
	}
	ctx := context.Background()
	type answer struct {
		Replica string          `json:"replica"`
		Args    json.RawMessage `json:"args"`
		N       int             `json:"n"`
		Action  string          `json:"action"`
		Content struct{ Name string }
		Text    string `json:"text"`
	}
	// Three calls in a row (a request each) run on the three replicas.
	replicas := map[string]bool{}
	for k := range 3 {
		var got answer
		if err := cl.CallTool(ctx, "echo", map[string]int{"k": k}, &got); err != nil || string(got.Args) != fmt.Sprintf(`{"k":%d}`, k) {
			t.Fatalf("echo %d: %+v, %v", k, got, err)
		}
		replicas[got.Replica] = true
	}
	if len(replicas) != 3 {
		t.Errorf("three calls ran on replicas %v: want all three, as the proxy sends them", replicas)
	}
	for k := range 6 {
		var got answer
		var progress []float64
		res, err := cl.CallToolRaw(ctx, mcp.CallToolParams{Name: "count", Arguments: map[string]int{"n": 4},
			OnProgress: func(p mcp.ProgressNotification) { progress = append(progress, p.Progress) }})
		if err != nil || res.IsError || fmt.Sprint(progress) != "[1 2 3 4]" {
			t.Fatalf("count %d: progress %v, %+v, %v", k, progress, res, err)
		}
		answers := c.answers()
		if err := cl.CallTool(ctx, "ask", nil, &got); err != nil || got.Action != "accept" || got.Content.Name != "Ada" {
			t.Fatalf("ask %d: %+v, %v", k, got, err)
		}
		c.answeredElsewhere(t, version, answers, got.Replica)
		answers = c.answers()
		if err := cl.CallTool(ctx, "sample", nil, &got); err != nil || got.Text != "sampled" {
			t.Fatalf("sample %d: %+v, %v", k, got, err)
		}
		c.answeredElsewhere(t, version, answers, got.Replica)
	}

	if err := cl.Subscribe(ctx, "test://watched"); err != nil {
		t.Fatal(err)
	}
	// What the calls on each replica change reaches the client's stream
	// (legacy: the standalone GET; 2026-07-28: subscriptions/listen, which
	// carries no log messages), wherever that stream is.
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
		if err := cl.CallTool(ctx, "touch", nil, nil); err != nil {
			t.Fatal(err)
		}
		hear(fmt.Sprintf("touch %d", k), "test://watched")
		if err := cl.CallTool(ctx, "grow", map[string]string{"tag": rand.Text()}, nil); err != nil {
			t.Fatal(err)
		}
		hear(fmt.Sprintf("grow %d", k), "notifications/tools/list_changed")
		if version != mcp.Version20260728 {
			text := rand.Text()
			if err := cl.CallTool(ctx, "announce", map[string]string{"text": text}, nil); err != nil {
				t.Fatal(err)
			}
			hear(fmt.Sprintf("announce %d", k), "log:"+text)
		}
	}
	if err := cl.Unsubscribe(ctx, "test://watched"); err != nil {
		t.Fatal(err)
	}

	// Cancellation: the client gives up once the call has started; the
	// replica running it sees its context end (and says so on Redis).
	for k := range 3 {
		tag := rand.Text()
		cctx, cancel := context.WithCancel(ctx)
		_, err := cl.CallToolRaw(cctx, mcp.CallToolParams{Name: "block", Arguments: map[string]string{"tag": tag},
			OnProgress: func(mcp.ProgressNotification) { cancel() }})
		cancel()
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("block %d: %v, want context.Canceled", k, err)
		}
		var seen struct{ Cancelled bool }
		if err := cl.CallTool(ctx, "cancelled", map[string]string{"tag": tag}, &seen); err != nil || !seen.Cancelled {
			t.Fatalf("block %d: the call was not cancelled on its replica: %+v, %v", k, seen, err)
		}
	}
}

// answers returns how many of the client's answers each replica got.
func (c *procCluster) answers() []int64 {
	n := make([]int64, len(c.procs))
	for i := range n {
		n[i] = c.proxy.Answers(i)
	}
	return n
}

// answeredElsewhere checks that, in a legacy session, the client POSTed
// one answer since before, to another replica than asker, the one whose
// tool asked (in 2026-07-28 answers ride on the retried call).
func (c *procCluster) answeredElsewhere(t *testing.T, version string, before []int64, asker string) {
	t.Helper()
	var total int64
	for i, n := range c.answers() {
		total += n - before[i]
		if n != before[i] && fmt.Sprint(i) == asker {
			t.Errorf("replica %s asked and got the answer: the proxy should have sent it on", asker)
		}
	}
	if want := map[bool]int64{true: 0, false: 1}[version == mcp.Version20260728]; total != want {
		t.Errorf("%d answers POSTed, want %d", total, want)
	}
}
