package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
)

// TestMain lets the test binary act as the notes server, so the tests can
// start it as a real stdio subprocess.
func TestMain(m *testing.M) {
	if os.Getenv("NOTES_TEST_SERVER") == "1" {
		logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
		if err := newServer(newStore(5*time.Millisecond), logger).ServeStdio(context.Background()); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// connections returns a client per way of reaching the server: in process
// and over a subprocess's stdio, in the modern era and each legacy one.
func connections(t *testing.T) map[string]*mcpclient.Client {
	t.Helper()
	ctx := context.Background()
	out := map[string]*mcpclient.Client{}
	quiet := slog.New(slog.DiscardHandler)
	for _, version := range []string{"", mcp.Version20241105, mcp.Version20250326, mcp.Version20250618, mcp.Version20251125, mcp.Version20260728} {
		name := version
		if name == "" {
			name = "negotiated"
		}
		opts := mcpclient.Options{Info: mcp.Implementation{Name: "notes-test", Version: "1"}, ProtocolVersion: version}

		srv := newServer(newStore(time.Millisecond), quiet)
		c, err := mcpclient.ConnectTransport(ctx, srv.InProcess(), opts)
		if err != nil {
			t.Fatalf("in process %s: %v", name, err)
		}
		out["inprocess/"+name] = c

		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), "NOTES_TEST_SERVER=1")
		cmd.Stderr = io.Discard
		c, err = mcpclient.DialCommand(ctx, cmd, opts)
		if err != nil {
			t.Fatalf("stdio %s: %v", name, err)
		}
		out["stdio/"+name] = c
	}
	t.Cleanup(func() {
		for name, c := range out {
			if err := c.Close(); err != nil {
				t.Errorf("close %s: %v", name, err)
			}
		}
	})
	return out
}

// TestTypedMCPClient uses the generated NotesMCPClient as a Notes, over every
// connection, and checks what a caller of the Go interface would.
func TestTypedMCPClient(t *testing.T) {
	for name, c := range connections(t) {
		t.Run(name, func(t *testing.T) {
			if strings.HasSuffix(name, "negotiated") && c.ProtocolVersion() != mcp.Version20260728 {
				t.Errorf("negotiated %s, want the newest, %s", c.ProtocolVersion(), mcp.Version20260728)
			}
			ctx := context.Background()
			notes := NewNotesMCPClient(c)
			a, err := notes.AddNote(ctx, NewNote{Text: "Buy oat milk", Tags: []string{"shopping"}})
			if err != nil {
				t.Fatalf("AddNote: %v", err)
			}
			if a.ID == "" || a.Text != "Buy oat milk" || a.Priority != Normal || a.Created.IsZero() || len(a.Tags) != 1 {
				t.Errorf("AddNote returned %+v", a)
			}
			b, err := notes.AddNote(ctx, NewNote{Text: "milk the cows", Priority: High})
			if err != nil {
				t.Fatalf("AddNote: %v", err)
			}
			one := 1
			found, err := notes.SearchNotes(ctx, "MILK", &one)
			if err != nil || len(found) != 1 || found[0].ID != b.ID {
				t.Errorf("SearchNotes(MILK, 1) = %+v, %v; want only the newest, %s", found, err, b.ID)
			}
			found, err = notes.SearchNotes(ctx, "nothing like it", nil)
			if err != nil || found == nil || len(found) != 0 {
				t.Errorf("SearchNotes(no match) = %#v, %v; want an empty list", found, err)
			}
			got, err := notes.GetNote(ctx, a.ID)
			if err != nil || got.Text != a.Text || !got.Created.Equal(a.Created) {
				t.Errorf("GetNote = %+v, %v; want %+v", got, err, a)
			}
			report, err := notes.Reindex(ctx)
			if err != nil || report.Notes != 2 || report.Terms != 5 {
				t.Errorf("Reindex = %+v, %v; want 2 notes, 5 terms (buy oat milk the cows)", report, err)
			}
			if err := notes.DeleteNote(ctx, a.ID); err != nil {
				t.Fatalf("DeleteNote: %v", err)
			}
			_, err = notes.GetNote(ctx, a.ID)
			if re, ok := err.(*runtime.Error); !ok || re.Code != runtime.CodeServerError || re.Message != `get "n1": no note with that id` {
				t.Errorf("GetNote after delete: %#v; want the *runtime.Error -32000 the method returned, as over JSON-RPC", err)
			}
		})
	}
}

// TestValidationErrors checks that arguments breaking the schema come back as
// tool errors naming the field, which is what a model needs to fix its call.
func TestValidationErrors(t *testing.T) {
	for name, c := range connections(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			for _, tc := range []struct {
				tool string
				args string
				want string
			}{
				{"add_note", `{"text":""}`, `"text"`},
				{"add_note", `{"text":"x","priority":"urgent"}`, `"priority"`},
				{"add_note", `{"text":"x","colour":"red"}`, `"colour"`},
				{"add_note", `{"tags":["a"]}`, `"text"`},
				{"add_note", `{"text":5}`, `"text"`},
				{"search_notes", `{"query":"x","limit":"ten"}`, `"limit"`},
				{"get_note", `{}`, `"id"`},
			} {
				err := c.CallTool(ctx, tc.tool, json.RawMessage(tc.args), nil)
				var toolErr *mcp.ToolError
				if !errors.As(err, &toolErr) || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("%s %s: %v; want a tool error naming %s", tc.tool, tc.args, err, tc.want)
				}
			}
		})
	}
}

// TestProgress checks reindex's progress: one notification per note, strictly
// increasing, all before the result.
func TestProgress(t *testing.T) {
	for name, c := range connections(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			for range 3 {
				if err := c.CallTool(ctx, "add_note", map[string]any{"text": "a note"}, nil); err != nil {
					t.Fatal(err)
				}
			}
			var got []float64
			res, err := c.CallToolRaw(ctx, mcp.CallToolParams{
				Name:       "reindex",
				OnProgress: func(p mcp.ProgressNotification) { got = append(got, p.Progress) },
			})
			if err != nil || res.IsError {
				t.Fatalf("reindex: %+v, %v", res, err)
			}
			if len(got) != 3 || got[0] != 1 || got[1] != 2 || got[2] != 3 {
				t.Errorf("progress %v, want [1 2 3]", got)
			}
		})
	}
}
