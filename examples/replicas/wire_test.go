package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/ext/redis/redistest"
)

// post POSTs a JSON-RPC message to endpoint in session sid ("" for
// none) and returns the status, the session id header and the body.
func post(t *testing.T, endpoint, sid, body string) (int, string, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, endpoint, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Mcp-Session-Id"), string(b)
}

// initialize opens a 2025-11-25 session at endpoint.
func initialize(t *testing.T, endpoint string) string {
	t.Helper()
	st, sid, body := post(t, endpoint, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"wire","version":"1"}}}`)
	if st != http.StatusOK || sid == "" {
		t.Fatalf("initialize: %d %q %s", st, sid, body)
	}
	if st, _, body := post(t, endpoint, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); st != http.StatusAccepted {
		t.Fatalf("notifications/initialized: %d %s", st, body)
	}
	return sid
}

const addNote = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add_note","arguments":{"text":"hello"}}}`

// TestSessionAcrossReplicas speaks the wire to each replica directly: a
// session opened on A serves calls on B, B's standalone GET stream gets
// the log message a note added on A sends every session, and a DELETE on
// B ends the session on A too.
func TestSessionAcrossReplicas(t *testing.T) {
	rs := redistest.Start(t)
	prefix := "ex:" + rand.Text()[:8] + ":"
	a := startReplica(t, "--redis", rs.URL(), "--prefix", prefix, "--name", "a")
	b := startReplica(t, "--redis", rs.URL(), "--prefix", prefix, "--name", "b")
	sid := initialize(t, a.URL)

	// B's standalone stream, open before the note is added on A.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, b.URL, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", sid)
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET on B: %d", resp.StatusCode)
	}

	st, _, body := post(t, a.URL, sid, addNote)
	if st != http.StatusOK || !strings.Contains(body, `"replica":"a"`) {
		t.Fatalf("add_note on A: %d %s", st, body)
	}
	sc := bufio.NewScanner(resp.Body)
	heard := false
	for !heard && sc.Scan() {
		line := sc.Text()
		heard = strings.HasPrefix(line, "data:") && strings.Contains(line, "notifications/message") && strings.Contains(line, `"by":"a"`)
	}
	if !heard {
		t.Fatalf("B's stream ended without the log message sent on A: %v", sc.Err())
	}

	// The session's next call lands on B.
	st, _, body = post(t, b.URL, sid, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"list_notes","arguments":{}}}`)
	if st != http.StatusOK || !strings.Contains(body, "hello") {
		t.Fatalf("list_notes on B: %d %s", st, body)
	}

	// DELETE on B ends it on A.
	del, _ := http.NewRequest(http.MethodDelete, b.URL, nil)
	del.Header.Set("Mcp-Session-Id", sid)
	dresp, err := http.DefaultClient.Do(del)
	if err != nil {
		t.Fatal(err)
	}
	dresp.Body.Close()
	if dresp.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE on B: %d", dresp.StatusCode)
	}
	if st, _, body := post(t, a.URL, sid, addNote); st != http.StatusNotFound {
		t.Fatalf("a call on A after the DELETE on B: %d %s, want 404", st, body)
	}
}

// TestRedisDown: with Redis gone, a replica's readiness says 503 and a
// session's call gets 503 with a JSON-RPC error (within --store-timeout,
// not a hang); once Redis is back, the replica is ready again and serves
// new sessions.
func TestRedisDown(t *testing.T) {
	rs := redistest.Start(t)
	a := startReplica(t, "--redis", rs.URL(), "--store-timeout", "500ms", "--name", "a")
	sid := initialize(t, a.URL)
	rs.Stop()
	if st := status(t, a.Base, "/readyz"); st != http.StatusServiceUnavailable {
		t.Errorf("readyz with Redis down: %d, want 503", st)
	}
	if st := status(t, a.Base, "/healthz"); st != http.StatusOK {
		t.Errorf("healthz with Redis down: %d, want 200 (the process is alive)", st)
	}
	st, _, body := post(t, a.URL, sid, addNote)
	if st != http.StatusServiceUnavailable || !strings.Contains(body, `"error"`) {
		t.Errorf("a call with Redis down: %d %s, want 503 with a JSON-RPC error", st, body)
	}
	rs.Restart()
	// The replica's connections come back on their own; readiness says when.
	deadline := time.Now().Add(20 * time.Second)
	for status(t, a.Base, "/readyz") != http.StatusOK {
		if time.Now().After(deadline) {
			t.Fatal("the replica is not ready 20s after Redis came back")
		}
		// This poll stays: /readyz is the probe a load balancer polls, and the
		// replica (another process) says nothing else when its Redis pool is
		// back; only the 20s limit, not the interval, decides the verdict.
		time.Sleep(100 * time.Millisecond)
	}
	sid = initialize(t, a.URL)
	if st, _, body := post(t, a.URL, sid, addNote); st != http.StatusOK || !bytes.Contains([]byte(body), []byte(`"id":"1"`)) {
		t.Fatalf("add_note after Redis came back (empty): %d %s", st, body)
	}
}

// TestInMemory: without --redis, one process serves a session on its own.
func TestInMemory(t *testing.T) {
	a := startReplica(t, "--name", "solo")
	if st := status(t, a.Base, "/readyz"); st != http.StatusOK {
		t.Fatalf("readyz: %d", st)
	}
	sid := initialize(t, a.URL)
	if st, _, body := post(t, a.URL, sid, addNote); st != http.StatusOK || !strings.Contains(body, `"replica":"solo"`) {
		t.Fatalf("add_note: %d %s", st, body)
	}
}
