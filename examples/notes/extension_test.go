package main

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
)

// TestTagsExtension calls the io.github.rpcgen/notes-tags extension through
// the typed client rpcgen generated for the Tags interface
// (NewTagsExtensionClient), in process and over stdio, in both eras; a
// client that does not declare the extension sends nothing.
func TestTagsExtension(t *testing.T) {
	ctx := context.Background()
	for _, version := range []string{mcp.Version20251125, mcp.Version20260728} {
		for _, via := range []string{"inprocess", "stdio"} {
			dial := func(opts mcpclient.Options) *mcpclient.Client {
				t.Helper()
				opts.ProtocolVersion = version
				var c *mcpclient.Client
				var err error
				if via == "inprocess" {
					c, err = mcpclient.ConnectTransport(ctx, newServer(newStore(time.Millisecond), slog.New(slog.DiscardHandler)).InProcess(), opts)
				} else {
					cmd := exec.Command(os.Args[0])
					cmd.Env = append(os.Environ(), "NOTES_TEST_SERVER=1")
					cmd.Stderr = io.Discard
					c, err = mcpclient.DialCommand(ctx, cmd, opts)
				}
				if err != nil {
					t.Fatalf("%s %s: %v", via, version, err)
				}
				t.Cleanup(func() { c.Close() })
				return c
			}
			c := dial(mcpclient.Options{Extensions: []mcp.Extension{{ID: TagsExtensionID}}})
			if _, ok := c.ServerExtension(TagsExtensionID); !ok {
				t.Fatalf("%s %s: the server does not declare %s: %s", via, version, TagsExtensionID, c.ServerCapabilities())
			}
			notes := NewNotesMCPClient(c)
			for _, n := range []NewNote{{Text: "a", Tags: []string{"x"}}, {Text: "b", Tags: []string{"x", "y"}}, {Text: "c"}} {
				if _, err := notes.AddNote(ctx, n); err != nil {
					t.Fatalf("%s %s: add_note: %v", via, version, err)
				}
			}
			got, err := NewTagsExtensionClient(c).Count(ctx)
			if err != nil || got.Tags["x"] != 2 || got.Tags["y"] != 1 || len(got.Tags) != 2 || got.Untagged != 1 {
				t.Errorf("%s %s: Count = %+v, %v; want x:2 y:1, 1 untagged", via, version, got, err)
			}

			// The typed client sends nothing for a client that did not
			// declare the extension (the server would refuse it with -32021:
			// TestExtensionModernWire, interop ts/extension.test.mjs).
			plain := dial(mcpclient.Options{})
			if _, err := NewTagsExtensionClient(plain).Count(ctx); !errors.Is(err, mcpclient.ErrExtensionNotDeclared) {
				t.Errorf("%s %s: the typed client sent for a client that did not declare: %v", via, version, err)
			}
		}
	}
}
