package main

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
)

// BenchmarkToolsCall measures one get_note call through the generated typed
// client, in process: the client encodes tools/call, the server decodes and
// validates the arguments with generated code, runs the store, and encodes
// the structured result, which the client decodes into a Note.
//
//	go test -run '^$' -bench ToolsCall -benchmem ./examples/notes/
func BenchmarkToolsCall(b *testing.B) {
	for _, era := range []struct{ name, version string }{
		{"legacy", mcp.Version20251125},
		{"modern", mcp.Version20260728},
	} {
		b.Run(era.name, func(b *testing.B) {
			ctx := context.Background()
			st := newStore(time.Millisecond)
			srv := newServer(st, slog.New(slog.DiscardHandler))
			c, err := mcpclient.ConnectTransport(ctx, srv.InProcess(), mcpclient.Options{ProtocolVersion: era.version})
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			notes := NewNotesMCPClient(c)
			added, err := notes.AddNote(ctx, NewNote{Text: "Buy oat milk", Tags: []string{"shopping"}})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				n, err := notes.GetNote(ctx, added.ID)
				if err != nil || n.ID != added.ID {
					b.Fatalf("GetNote: %+v, %v", n, err)
				}
			}
		})
	}
}
