// Command notes is an MCP server over stdio for a small notes store: the
// methods of the Notes interface become the tools add_note, search_notes,
// get_note, delete_note and reindex, with descriptions and JSON Schemas
// generated from the interface's doc comments and types.
//
//	go run ./examples/notes           # serve MCP on stdin/stdout (what an MCP host starts)
//	go run ./examples/notes --demo    # start itself as a server and call every tool
//
// Logs go to stderr; stdout carries nothing but MCP messages.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"time"

	"github.com/rpcgen/rpcgen/runtime/mcp"
)

func main() {
	demo := flag.Bool("demo", false, "start this program as an MCP server subprocess and call every tool through the generated typed client")
	pause := flag.Duration("reindex-pause", 50*time.Millisecond, "how long reindex works on each note")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))

	var err error
	if *demo {
		err = runDemo(ctx)
	} else {
		err = newServer(newStore(*pause), logger).ServeStdio(ctx)
	}
	if err != nil && ctx.Err() == nil {
		fmt.Fprintln(os.Stderr, "notes:", err)
		os.Exit(1)
	}
}

// newServer serves st's methods as MCP tools.
func newServer(st Notes, logger *slog.Logger) *mcp.Server {
	srv := mcp.NewServer(mcp.Implementation{Name: "notes", Title: "Notes", Version: "1.0.0"}, &mcp.ServerOptions{
		Instructions: "A notes store. Add notes with add_note, find them with search_notes, and read one with get_note.",
		Logger:       logger,
	})
	srv.AddTools(NotesTools(st)...)
	return srv
}

// runDemo starts this program again as an MCP server and calls each tool
// through NotesMCPClient, the typed client generated from the interface.
func runDemo(ctx context.Context) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	cmd := exec.Command(exe, "--reindex-pause=20ms")
	cmd.Stderr = os.Stderr
	client, err := mcp.DialCommand(ctx, cmd, mcp.ClientOptions{Info: mcp.Implementation{Name: "notes-demo", Version: "1.0.0"}})
	if err != nil {
		return err
	}
	defer client.Close()
	fmt.Printf("connected to %s %s, MCP %s\n", client.ServerInfo().Name, client.ServerInfo().Version, client.ProtocolVersion())

	tools, err := client.ListTools(ctx)
	if err != nil {
		return err
	}
	for _, t := range tools {
		fmt.Printf("tool %-13s %s\n", t.Name, firstLine(t.Description))
	}

	notes := NewNotesMCPClient(client)
	first, err := notes.AddNote(ctx, NewNote{Text: "Buy oat milk", Tags: []string{"shopping"}})
	if err != nil {
		return err
	}
	if _, err := notes.AddNote(ctx, NewNote{Text: "Call the plumber about the milk-white stain", Priority: High}); err != nil {
		return err
	}
	fmt.Printf("add_note     -> %s %q (%s)\n", first.ID, first.Text, first.Priority)

	two := 2
	found, err := notes.SearchNotes(ctx, "milk", &two)
	if err != nil {
		return err
	}
	fmt.Printf("search_notes -> %d notes, newest first: %s, %s\n", len(found), found[0].ID, found[1].ID)

	got, err := notes.GetNote(ctx, first.ID)
	if err != nil {
		return err
	}
	fmt.Printf("get_note     -> %q tagged %v\n", got.Text, got.Tags)

	report, err := notes.Reindex(ctx)
	if err != nil {
		return err
	}
	fmt.Printf("reindex      -> %d notes, %d terms\n", report.Notes, report.Terms)

	if err := notes.DeleteNote(ctx, first.ID); err != nil {
		return err
	}
	_, err = notes.GetNote(ctx, first.ID)
	fmt.Printf("delete_note  -> then get_note fails: %v\n", err)

	// A call that breaks the schema comes back as a tool error naming the field.
	_, err = notes.AddNote(ctx, NewNote{Text: ""})
	fmt.Printf("add_note with empty text -> %v\n", err)
	return nil
}

func firstLine(s string) string {
	for i, r := range s {
		if r == '\n' {
			return s[:i]
		}
	}
	return s
}
