package redis_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/ext/redis/internal/redistest"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
)

// TestLoadThroughProxy: 64 clients (three in four a legacy session, the
// others 2026-07-28) call for 30 seconds through the proxy, every request
// to the next replica process; every call is answered, with its own
// arguments. One call in ten has its progress on an event stream, one in
// ten asks the client (elicitation), whose answer, which names the
// client, comes back to the client that was asked.
func TestLoadThroughProxy(t *testing.T) {
	rs := redistest.Start(t)
	c := startProcs(t, rs)
	const clients = 64
	const dur = 30 * time.Second
	var calls, lost, mismatched, streamed, asked atomic.Int64
	var firstErr atomic.Value
	cls := make([]*mcpclient.Client, clients)
	for i := range cls {
		version := mcp.Version20251125
		if i%4 == 3 {
			version = mcp.Version20260728
		}
		name := json.RawMessage(fmt.Sprintf(`{"name":"client-%d"}`, i))
		cls[i] = connect(t, c.URL, mcpclient.Options{ProtocolVersion: version,
			OnElicit: func(context.Context, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
				return &mcp.ElicitResult{Action: "accept", Content: name}, nil
			}})
	}
	start := time.Now()
	deadline := start.Add(dur)
	var wg sync.WaitGroup
	for i, cl := range cls {
		wg.Go(func() {
			ctx := context.Background()
			for k := 0; time.Now().Before(deadline); k++ {
				calls.Add(1)
				if k%10 == 9 {
					var got struct {
						N int `json:"n"`
					}
					var ticks int
					res, err := cl.CallToolRaw(ctx, mcp.CallToolParams{Name: "count", Arguments: map[string]int{"n": 3},
						OnProgress: func(mcp.ProgressNotification) { ticks++ }})
					if err != nil {
						lost.Add(1)
						firstErr.CompareAndSwap(nil, err.Error())
						continue
					}
					if json.Unmarshal(res.StructuredContent, &got) != nil || got.N != 3 || ticks != 3 {
						mismatched.Add(1)
					}
					streamed.Add(1)
					continue
				}
				if k%10 == 5 {
					var got struct {
						Action  string
						Content struct{ Name string }
					}
					if err := cl.CallTool(ctx, "ask", nil, &got); err != nil {
						lost.Add(1)
						firstErr.CompareAndSwap(nil, err.Error())
						continue
					}
					if got.Action != "accept" || got.Content.Name != fmt.Sprintf("client-%d", i) {
						mismatched.Add(1)
					}
					asked.Add(1)
					continue
				}
				var got struct {
					Args struct{ Client, N int } `json:"args"`
				}
				if err := cl.CallTool(ctx, "echo", map[string]int{"client": i, "n": k}, &got); err != nil {
					lost.Add(1)
					firstErr.CompareAndSwap(nil, err.Error())
					continue
				}
				if got.Args.Client != i || got.Args.N != k {
					mismatched.Add(1)
				}
			}
		})
	}
	wg.Wait()
	took := time.Since(start)
	t.Logf("%d calls (%d with event streams, %d eliciting) from %d clients in %v through the proxy to 3 replica processes: %.0f calls/s; %d lost, %d mismatched; requests per replica %d/%d/%d",
		calls.Load(), streamed.Load(), asked.Load(), clients, took.Round(time.Millisecond), float64(calls.Load())/took.Seconds(),
		lost.Load(), mismatched.Load(), c.proxy.Served(0), c.proxy.Served(1), c.proxy.Served(2))
	if lost.Load() != 0 || mismatched.Load() != 0 {
		t.Errorf("%d lost (first: %v), %d mismatched answers", lost.Load(), firstErr.Load(), mismatched.Load())
	}
	if calls.Load() < clients*10 {
		t.Errorf("only %d calls in %v", calls.Load(), dur)
	}
	for i := range 3 {
		if c.proxy.Served(i) < calls.Load()/4 {
			t.Errorf("replica %d got %d requests of %d calls: the proxy did not spread them", i, c.proxy.Served(i), calls.Load())
		}
	}
}

// TestKillReplicaProcess: with the clients' standalone streams open, some
// of them on the replica process that is then killed (SIGKILL), log
// messages are sent just before the kill and after it, while those
// streams are down; each client resumes its stream on another replica with
// Last-Event-ID and gets every message exactly once.
func TestKillReplicaProcess(t *testing.T) {
	rs := redistest.Start(t)
	c := startProcs(t, rs)
	const clients, messages = 9, 20
	type inbox struct {
		mu   sync.Mutex
		seen map[string]int
		got  chan string
	}
	boxes := make([]*inbox, clients)
	var cls []*mcpclient.Client
	for i := range clients {
		b := &inbox{seen: map[string]int{}, got: make(chan string, 1000)}
		boxes[i] = b
		cls = append(cls, connect(t, c.URL, mcpclient.Options{OnLog: func(m mcp.LogMessage) {
			var d struct{ Text string }
			_ = json.Unmarshal(m.Data, &d)
			b.mu.Lock()
			b.seen[d.Text]++
			b.mu.Unlock()
			b.got <- d.Text
		}}))
	}
	ctx := context.Background()
	announce := func(cl *mcpclient.Client, text string) {
		t.Helper()
		if err := cl.CallTool(ctx, "announce", map[string]string{"text": text}, nil); err != nil {
			t.Fatalf("announce %s: %v", text, err)
		}
	}
	// waitFor reports whether every client heard all of texts within d.
	waitFor := func(d time.Duration, texts ...string) bool {
		timeout := time.After(d)
		for _, b := range boxes {
			for {
				b.mu.Lock()
				all := true
				for _, s := range texts {
					all = all && b.seen[s] > 0
				}
				b.mu.Unlock()
				if all {
					break
				}
				select {
				case <-b.got:
				case <-timeout:
					return false
				}
			}
		}
		return true
	}
	// A client's standalone stream opens after its initialize: every
	// stream is open once every client has heard one announcement.
	for n := 0; ; n++ {
		announce(cls[0], fmt.Sprintf("ready%d", n))
		if waitFor(2*time.Second, fmt.Sprintf("ready%d", n)) {
			break
		}
		if n == 10 {
			t.Fatal("the clients' standalone streams did not open")
		}
	}
	// The first half is sent before the kill, the kill follows the last
	// answer at once: a replica stores the log messages a call makes (for
	// every session) before it answers the call, so none is lost with it.
	for k := range messages / 2 {
		announce(cls[k%clients], fmt.Sprintf("m%d", k))
	}
	victim, open := 0, int64(0)
	for i := range 3 {
		if n := c.proxy.Streams(i); n > open {
			victim, open = i, n
		}
	}
	if open == 0 {
		t.Fatal("no stream open on any replica")
	}
	resumesBefore := c.proxy.Resumes()
	c.kill(t, victim)
	t.Logf("killed replica %d with %d streams open on it", victim, open)
	for k := messages / 2; k < messages; k++ {
		announce(cls[k%clients], fmt.Sprintf("m%d", k))
	}
	announce(cls[0], "end")
	if !waitFor(20*time.Second, "end") {
		t.Fatal("not every client heard the last message")
	}
	if got := c.proxy.Resumes() - resumesBefore; got < open {
		t.Errorf("%d streams resumed with Last-Event-ID after the kill, want at least the %d that were on the killed replica", got, open)
	}
	for i, b := range boxes {
		b.mu.Lock()
		for k := range messages {
			if n := b.seen[fmt.Sprintf("m%d", k)]; n != 1 {
				t.Errorf("client %d got m%d %d times, want once", i, k, n)
			}
		}
		b.mu.Unlock()
	}
}
