package main

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/rpcgen/rpcgen/ext/redis/redistest"
	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttpclient"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
)

// newKey returns a fresh 32-byte key in base64, as `openssl rand -base64
// 32` makes one.
func newKey() string {
	k := make([]byte, 32)
	_, _ = rand.Read(k)
	return base64.StdEncoding.EncodeToString(k)
}

// writeRing writes keys, one a line, to file.
func writeRing(t *testing.T, file string, keys ...string) {
	t.Helper()
	if err := os.WriteFile(file, []byte("# the sealing key first\n"+strings.Join(keys, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
}

// modernNotes connects rpcgen's client in 2026-07-28 through endpoint,
// accepting every elicitation, and returns it and the notes client.
func modernNotes(t *testing.T, endpoint string) (*mcpclient.Client, *NotesMCPClient) {
	t.Helper()
	client, err := mcphttpclient.Connect(context.Background(), endpoint, &mcphttpclient.Options{MCP: mcpclient.Options{
		ProtocolVersion: mcp.Version20260728,
		OnElicit: func(context.Context, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept"}, nil
		},
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	return client, NewNotesMCPClient(client)
}

// deleteAcross adds a note and deletes it (elicitation, progress) through
// the proxy, so that the input_required answer and the retry land on
// different replicas; it returns the deletion's error.
func deleteAcross(t *testing.T, client *mcpclient.Client, notes *NotesMCPClient, k int) error {
	t.Helper()
	ctx := context.Background()
	n, err := notes.AddNote(ctx, fmt.Sprintf("doomed %d", k))
	if err != nil {
		t.Fatalf("AddNote: %v", err)
	}
	var progress []float64
	res, err := client.CallToolRaw(ctx, mcp.CallToolParams{Name: "delete_note", Arguments: map[string]string{"id": n.ID},
		OnProgress: func(p mcp.ProgressNotification) { progress = append(progress, p.Progress) }})
	if err != nil {
		return err
	}
	if res.IsError {
		return fmt.Errorf("delete_note: isError %s", res.StructuredContent)
	}
	// The first round reports 1; the retry, which has the answer, 1 to 3.
	if fmt.Sprint(progress) != "[1 1 2 3]" {
		t.Errorf("delete %d: progress %v, want [1 1 2 3]", k, progress)
	}
	if _, err := notes.GetNote(ctx, n.ID); err == nil {
		t.Errorf("note %s is still there after its deletion", n.ID)
	}
	return nil
}

// TestStateKeysAcrossReplicas: in 2026-07-28 a call that asks the client
// (DeleteNote: progress and an elicitation) ends with input_required on
// one replica, and the client's retry, through the round-robin proxy,
// lands on the other. With one key ring on both (--state-keys) every
// retry completes; with a key each (no --state-keys) the other replica
// cannot open the requestState and the call fails with -32602.
func TestStateKeysAcrossReplicas(t *testing.T) {
	rs := redistest.Start(t)
	ring := filepath.Join(t.TempDir(), "state-keys")
	writeRing(t, ring, newKey())
	for _, shared := range []bool{true, false} {
		t.Run(map[bool]string{true: "shared", false: "apart"}[shared], func(t *testing.T) {
			prefix := "ex:" + rand.Text()[:8] + ":"
			args := func(name string) []string {
				a := []string{"--redis", rs.URL(), "--prefix", prefix}
				if shared {
					a = append(a, "--state-keys", ring)
				}
				return append(a, "--name", name)
			}
			a, b := startReplica(t, args("a")...), startReplica(t, args("b")...)
			endpoint, _ := roundRobin(t, a, b)
			client, notes := modernNotes(t, endpoint)
			var failed int
			for k := range 4 {
				err := deleteAcross(t, client, notes, k)
				var rpcErr *runtime.Error
				switch {
				case err == nil:
				case errors.As(err, &rpcErr) && rpcErr.Code == runtime.CodeInvalidParams && strings.Contains(rpcErr.Message, "requestState"):
					failed++
				default:
					t.Fatalf("delete %d: %v", k, err)
				}
			}
			if shared && failed != 0 {
				t.Errorf("%d of 4 deletions failed with one key ring on both replicas", failed)
			}
			if !shared && failed == 0 {
				t.Error("every deletion completed with a key of its own on each replica: the retries did not cross replicas")
			}
		})
	}
}

// TestStateKeysRotation: two replicas rotate their key ring without a
// restart, in the three steps of mcpserver.ParseStateKeys (add the new key,
// move it first, retire the old one), each step written to the ring file
// and taken on SIGHUP by both before the next; a call that asks the
// client, its retry on the other replica, completes at every step.
func TestStateKeysRotation(t *testing.T) {
	rs := redistest.Start(t)
	ring := filepath.Join(t.TempDir(), "state-keys")
	oldKey, newKeyText := newKey(), newKey()
	writeRing(t, ring, oldKey)
	prefix := "ex:" + rand.Text()[:8] + ":"
	a := startReplica(t, "--redis", rs.URL(), "--prefix", prefix, "--state-keys", ring, "--name", "a")
	b := startReplica(t, "--redis", rs.URL(), "--prefix", prefix, "--state-keys", ring, "--name", "b")
	endpoint, _ := roundRobin(t, a, b)
	client, notes := modernNotes(t, endpoint)
	k := 0
	check := func(step string) {
		t.Helper()
		for range 2 {
			if err := deleteAcross(t, client, notes, k); err != nil {
				t.Fatalf("%s: %v", step, err)
			}
			k++
		}
	}
	check("before")
	for _, step := range []struct {
		name string
		keys []string
	}{
		{"new key added", []string{oldKey, newKeyText}},
		{"new key first", []string{newKeyText, oldKey}},
		{"old key retired", []string{newKeyText}},
	} {
		writeRing(t, ring, step.keys...)
		keys, err := mcpserver.ParseStateKeys(strings.Join(step.keys, "\n"))
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range []*replica{a, b} {
			if err := r.cmd.Process.Signal(syscall.SIGHUP); err != nil {
				t.Fatal(err)
			}
			r.waitLog(t, "state keys reloaded", fingerprints(keys))
		}
		check(step.name)
	}
	// A ring that does not parse leaves the keys as they were.
	if err := os.WriteFile(ring, []byte("not a key\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := a.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	a.waitLog(t, "state keys not reloaded")
	check("after a bad ring")
}
