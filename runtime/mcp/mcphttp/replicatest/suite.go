package replicatest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttpclient"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
)

// Run runs every multi-replica check on clusters on nb, each on a fresh
// backend.
func Run(t *testing.T, nb NewBackend) {
	t.Run("AnyReplica", func(t *testing.T) { AnyReplica(t, nb) })
	t.Run("OwnClient", func(t *testing.T) { OwnClient(t, nb) })
	t.Run("ResumeElsewhere", func(t *testing.T) { ResumeElsewhere(t, nb) })
	t.Run("Standalone", func(t *testing.T) { Standalone(t, nb) })
	t.Run("AnswerElsewhere", func(t *testing.T) { AnswerElsewhere(t, nb) })
	t.Run("CancelElsewhere", func(t *testing.T) { CancelElsewhere(t, nb) })
	t.Run("DeleteEverywhere", func(t *testing.T) { DeleteEverywhere(t, nb) })
	t.Run("GlobalLimit", func(t *testing.T) { GlobalLimit(t, nb) })
	t.Run("KillReplica", func(t *testing.T) { KillReplica(t, nb) })
	t.Run("StoreDown", func(t *testing.T) { StoreDown(t, nb) })
}

// AnyReplica: every request of one session may land on any replica.
func AnyReplica(t *testing.T, nb NewBackend) {
	c := NewCluster(t, nb, mcphttp.Options{})
	w := c.NewWire(t)
	w.Initialize(mcp.Version20251125, `{}`)
	seen := map[string]bool{}
	for k := range 3 * Replicas {
		st, res := w.Call(10+k, "whoami", `{}`)
		if st != http.StatusOK {
			t.Fatalf("call %d: %d %s", k, st, res)
		}
		seen[member(res, "replica")] = true
	}
	if len(seen) != Replicas {
		t.Errorf("the session's calls were served by replicas %v, want all %d", seen, Replicas)
	}
	// The log level set on one replica holds on the others.
	if st, b := w.Post(`{"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":"error"}}`); st != http.StatusOK {
		t.Fatalf("logging/setLevel: %d %s", st, b)
	}
	for k := range Replicas {
		resp := w.Do(http.MethodPost, ToolCall(30+k, "poll", `{}`, ""))
		msg := lastMessage(t, resp)
		resp.Body.Close()
		if strings.Contains(string(msg), "notifications/message") {
			t.Errorf("a log message below the level set on another replica: %s", msg)
		}
	}
}

// OwnClient: rpcgen's own client, through the proxy: calls, progress, and
// sampling answered wherever the client's POST lands.
func OwnClient(t *testing.T, nb NewBackend) {
	c := NewCluster(t, nb, mcphttp.Options{RetryInterval: 20 * time.Millisecond})
	ctx := context.Background()
	client, err := mcphttpclient.Connect(ctx, c.URL, &mcphttpclient.Options{MCP: mcpclient.Options{
		ProtocolVersion: mcp.Version20251125,
		OnSample: func(_ context.Context, p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
			return &mcp.CreateMessageResult{Role: "assistant", Content: mcp.TextContent("sampled"), Model: "m"}, nil
		},
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	for k := range 2 * Replicas {
		var got struct {
			Text string `json:"text"`
		}
		if err := client.CallTool(ctx, "sample", nil, &got); err != nil || got.Text != "sampled" {
			t.Fatalf("sample %d: %+v, %v", k, got, err)
		}
		var progress []float64
		res, err := client.CallToolRaw(ctx, mcp.CallToolParams{Name: "poll", OnProgress: func(p mcp.ProgressNotification) {
			progress = append(progress, p.Progress)
		}})
		if err != nil || res.IsError || fmt.Sprint(progress) != "[1 2 3]" {
			t.Fatalf("poll %d: progress %v, %+v, %v", k, progress, res, err)
		}
	}
}

// ResumeElsewhere: a stream the client dropped resumes on another replica
// with Last-Event-ID, nothing lost or repeated.
func ResumeElsewhere(t *testing.T, nb NewBackend) {
	c := NewCluster(t, nb, mcphttp.Options{})
	w := c.NewWire(t)
	w.Initialize(mcp.Version20251125, `{}`)
	first := c.Next()
	s := NewStream(w.Do(http.MethodPost, ToolCall(7, "poll", `{}`, "p")))
	var got []string
	for {
		m, err := s.Next()
		if err != nil {
			break // mcpserver.CloseStream ended the connection
		}
		if m.Raw != "" {
			got = append(got, describe(m))
		}
	}
	s.Close()
	if c.Next() == first {
		t.Fatal("the proxy would resume on the replica that wrote the stream")
	}
	r := NewStream(w.Do(http.MethodGet, "", "Last-Event-ID", s.LastEventID()))
	defer r.Close()
	for {
		m, err := r.Next()
		if err != nil {
			break
		}
		if m.Raw != "" {
			got = append(got, describe(m))
		}
	}
	want := fmt.Sprintf("[progress 1 progress 2 log progress 3 response %d]", first)
	if fmt.Sprint(got) != want {
		t.Errorf("the stream, across replicas: %v\nwant %s", got, want)
	}
}

func describe(m Message) string {
	switch {
	case m.Method == "notifications/progress":
		return fmt.Sprintf("progress %v", progressValue(m))
	case m.Method == "notifications/message":
		return "log"
	case m.Method != "":
		return m.Method
	}
	return "response " + member(json.RawMessage(member(m.Result, "structuredContent")), "replica")
}

// Standalone: a GET stream held by one replica gets the notifications
// made on every replica: resources/updated, list_changed, log messages.
func Standalone(t *testing.T, nb NewBackend) {
	CheckStandalone(t, NewCluster(t, nb, mcphttp.Options{}))
}

// CheckStandalone is Standalone on the cluster c; it adds a tool to each
// replica's server.
func CheckStandalone(t *testing.T, c *Cluster) {
	w := c.NewWire(t)
	w.Initialize(mcp.Version20251125, `{}`)
	if st, b := w.Post(`{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"` + WatchedURI + `"}}`); st != http.StatusOK {
		t.Fatalf("subscribe: %d %s", st, b)
	}
	holder := c.Next()
	s := NewStream(w.Do(http.MethodGet, ""))
	defer s.Close()
	if s.Resp.StatusCode != http.StatusOK {
		t.Fatalf("GET: %d", s.Resp.StatusCode)
	}
	if m, err := s.Next(); err != nil || m.Raw != "" {
		t.Fatalf("the stream's priming event: %+v, %v", m, err)
	}
	for i := range Replicas {
		c.Servers[i].ResourceUpdated(WatchedURI)
		c.Servers[i].Log(mcp.LevelWarning, "ops", fmt.Sprintf("from %d", i))
		c.Servers[i].AddTools(mcpserver.Tool{Name: fmt.Sprintf("extra%d-%d", i, c.next.Load()), Handler: func(context.Context, json.RawMessage) (json.RawMessage, error) {
			return json.RawMessage(`{}`), nil
		}})
	}
	count := map[string]int{}
	for n := 0; n < 3*Replicas; {
		m, err := s.Next()
		if err != nil {
			t.Fatalf("the stream held by replica %d ended after %v: %v", holder, count, err)
		}
		if m.Method != "" {
			count[m.Method]++
			n++
		}
	}
	want := map[string]int{"notifications/resources/updated": Replicas, "notifications/message": Replicas, "notifications/tools/list_changed": Replicas}
	if fmt.Sprint(count) != fmt.Sprint(want) {
		t.Errorf("the standalone stream on replica %d got %v, want %v", holder, count, want)
	}
}

// AnswerElsewhere: an elicitation a tool on one replica sends is answered
// by a POST that lands on another; of two answers, the first counts.
func AnswerElsewhere(t *testing.T, nb NewBackend) {
	CheckAnswer(t, NewCluster(t, nb, mcphttp.Options{}))
}

// CheckAnswer is AnswerElsewhere on the cluster c.
func CheckAnswer(t *testing.T, c *Cluster) {
	w := c.NewWire(t)
	w.Initialize(mcp.Version20251125, `{"elicitation":{}}`)
	asker := c.Next()
	s := NewStream(w.Do(http.MethodPost, ToolCall(5, "ask", `{}`, "")))
	defer s.Close()
	var req Message
	for req.Method == "" {
		m, err := s.Next()
		if err != nil {
			t.Fatalf("no elicitation/create: %v", err)
		}
		req = m
	}
	if req.Method != "elicitation/create" {
		t.Fatalf("got %s, want elicitation/create", req.Raw)
	}
	for _, name := range []string{"first", "second"} {
		if c.Next() == asker {
			c.next.Add(1) // answer on another replica
		}
		st, b := w.Post(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"action":"accept","content":{"name":%q}}}`, req.ReqID, name))
		if st != http.StatusAccepted {
			t.Fatalf("answer %s: %d %s", name, st, b)
		}
	}
	var resp Message
	for resp.Result == nil {
		m, err := s.Next()
		if err != nil {
			t.Fatalf("no response: %v", err)
		}
		resp = m
	}
	sc := json.RawMessage(member(resp.Result, "structuredContent"))
	if member(sc, "replica") != fmt.Sprint(asker) || member(json.RawMessage(member(sc, "content")), "name") != `"first"` {
		t.Errorf("the tool on replica %d got %s, want the first answer", asker, sc)
	}
}

// CancelElsewhere: notifications/cancelled POSTed to one replica cancels
// the call running on another.
func CancelElsewhere(t *testing.T, nb NewBackend) {
	c := NewCluster(t, nb, mcphttp.Options{})
	w := c.NewWire(t)
	w.Initialize(mcp.Version20251125, `{}`)
	done := make(chan int, 1)
	go func() {
		resp := w.Do(http.MethodPost, ToolCall(9, "block", `{}`, ""))
		resp.Body.Close()
		done <- resp.StatusCode
	}()
	runner := recv(t, c.Started, "the blocking tool's start")
	if c.Next() == runner {
		c.next.Add(1)
	}
	if st, b := w.Post(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9}}`); st != http.StatusAccepted {
		t.Fatalf("notifications/cancelled: %d %s", st, b)
	}
	if got := recv(t, c.Cancelled, "the cancellation"); got != runner {
		t.Errorf("replica %d saw its call cancelled, want %d", got, runner)
	}
	if st := recv(t, done, "the cancelled call's POST"); st != http.StatusAccepted {
		t.Errorf("the cancelled call's POST got %d, want 202 (no response)", st)
	}
}

// DeleteEverywhere: DELETE on one replica ends the session on all.
func DeleteEverywhere(t *testing.T, nb NewBackend) {
	c := NewCluster(t, nb, mcphttp.Options{})
	w := c.NewWire(t)
	w.Initialize(mcp.Version20251125, `{}`)
	for k := range Replicas { // every replica knows the session
		if st, b := w.Call(10+k, "whoami", `{}`); st != http.StatusOK {
			t.Fatalf("call: %d %s", st, b)
		}
	}
	resp := w.Do(http.MethodDelete, "")
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE: %d", resp.StatusCode)
	}
	for k := range Replicas {
		if st, b := w.Call(20+k, "whoami", `{}`); st != http.StatusNotFound {
			t.Errorf("after DELETE, replica %d answered %d %s, want 404", c.Next(), st, b)
		}
	}
}

// GlobalLimit: MaxSessions bounds the sessions of every replica together.
func GlobalLimit(t *testing.T, nb NewBackend) {
	c := NewCluster(t, nb, mcphttp.Options{MaxSessions: 2})
	a, b := c.NewWire(t), c.NewWire(t)
	a.Initialize(mcp.Version20251125, `{}`)
	b.Initialize(mcp.Version20251125, `{}`)
	x := c.NewWire(t)
	st, body := x.Post(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`)
	if st != http.StatusServiceUnavailable || !strings.Contains(string(body), `"id":1`) {
		t.Errorf("a third session, on replica %d: %d %s, want 503 with a JSON-RPC error", c.Next()-1, st, body)
	}
	resp := a.Do(http.MethodDelete, "")
	resp.Body.Close()
	x.Initialize(mcp.Version20251125, `{}`) // a slot is free again
}

// KillReplica: a replica dies while it holds a session's standalone
// stream and runs one of its calls. The client resumes the standalone
// stream on another replica and misses nothing sent meanwhile; the call's
// stream, resumed elsewhere, ends (its call died with its replica) rather
// than hang.
func KillReplica(t *testing.T, nb NewBackend) {
	c := NewCluster(t, nb, mcphttp.Options{StoreTimeout: 500 * time.Millisecond})
	w := c.NewWire(t)
	w.Initialize(mcp.Version20251125, `{}`)
	if st, b := w.Post(`{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"` + WatchedURI + `"}}`); st != http.StatusOK {
		t.Fatalf("subscribe: %d %s", st, b)
	}
	victim := c.Next()
	sa := NewStream(w.Do(http.MethodGet, ""))
	if m, err := sa.Next(); err != nil || m.Raw != "" {
		t.Fatalf("priming: %+v %v", m, err)
	}
	c.Servers[victim].ResourceUpdated(WatchedURI)
	if m, err := sa.Next(); err != nil || m.Method != "notifications/resources/updated" {
		t.Fatalf("before the kill: %+v %v", m, err)
	}
	// A call on the victim too, with an event stream open.
	for c.Next() != victim {
		c.next.Add(1)
	}
	call := NewStream(w.Do(http.MethodPost, ToolCall(8, "block", `{}`, "tok")))
	recv(t, c.Started, "the call on the victim")
	if m, err := call.Next(); err != nil || m.Raw != "" {
		t.Fatalf("the call's priming event: %+v %v", m, err)
	}
	if m, err := call.Next(); err != nil || m.Method != "notifications/progress" {
		t.Fatalf("the call's progress: %+v %v", m, err)
	}
	c.Kill(victim)
	for {
		if _, err := sa.Next(); err != nil {
			break
		}
	}
	sa.Close()
	call.Close()
	for i := range Replicas {
		if i != victim {
			c.Servers[i].ResourceUpdated(WatchedURI)
		}
	}
	r := NewStream(w.Do(http.MethodGet, "", "Last-Event-ID", sa.LastEventID()))
	defer r.Close()
	for n := 0; n < Replicas-1; {
		m, err := r.Next()
		if err != nil {
			t.Fatalf("the resumed standalone stream ended after %d updates: %v", n, err)
		}
		if m.Method == "notifications/resources/updated" {
			n++
		} else if m.Method != "" {
			t.Errorf("unexpected %s", m.Raw)
		}
	}
	// The dead replica's call: the resumed stream ends, and the next
	// resume is told not to come back.
	rc := w.Do(http.MethodGet, "", "Last-Event-ID", call.LastEventID())
	for s := NewStream(rc); ; {
		m, err := s.Next()
		if err != nil {
			break
		}
		if m.Raw != "" {
			t.Errorf("the dead call's stream sent %s", m.Raw)
		}
	}
	rc.Body.Close()
	again := w.Do(http.MethodGet, "", "Last-Event-ID", call.LastEventID())
	again.Body.Close()
	if again.StatusCode != http.StatusNoContent {
		t.Errorf("resuming the dead call's stream again: %d, want 204", again.StatusCode)
	}
}
