package main

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/runtime"
)

// TestTypedClients reads the resources, gets the prompts and completes
// through the generated clients: the MCP one (resources/read, prompts/get,
// completion/complete under the hood, in every revision) and the JSON-RPC
// one (each method a plain JSON-RPC method). Both give back the values the
// fixture returned.
func TestTypedClients(t *testing.T) {
	ctx := context.Background()
	f := newFixture(time.Millisecond)
	a, b := runtime.Pipe()
	server := runtime.NewConn(a, runtime.Options{Handler: NewConformanceHandler(f)})
	conn := runtime.NewConn(b, runtime.Options{})
	t.Cleanup(func() { conn.Close(); server.Close() })

	clients := map[string]Conformance{"jsonrpc": NewConformanceClient(conn)}
	for _, version := range versions {
		c, _ := connect(t, version)
		clients["mcp/"+version] = NewConformanceMCPClient(c)
	}
	for name, conf := range clients {
		t.Run(name, func(t *testing.T) {
			if got, err := conf.StaticText(ctx); err != nil || got != staticText {
				t.Errorf("StaticText = %q, %v", got, err)
			}
			if got, err := conf.StaticBinary(ctx); err != nil || !bytes.Equal(got, f.png) {
				t.Errorf("StaticBinary = %x, %v", got, err)
			}
			if got, err := conf.TemplateData(ctx, "a b/c"); err != nil || got != (record{ID: "a b/c", Name: "Record a b/c"}) {
				t.Errorf("TemplateData = %+v, %v", got, err)
			}
			if got, err := conf.WatchedResource(ctx); err != nil || got != "Watched resource, version 1." {
				t.Errorf("WatchedResource = %q, %v", got, err)
			}
			if got, err := conf.SimplePrompt(ctx); err != nil || got != simplePrompt {
				t.Errorf("SimplePrompt = %q, %v", got, err)
			}
			if got, err := conf.PromptWithArguments(ctx, "one", "two"); err != nil || got != `Prompt with arguments: arg1="one", arg2="two".` {
				t.Errorf("PromptWithArguments = %q, %v", got, err)
			}
			msgs, err := conf.PromptWithEmbeddedResource(ctx, "test://x")
			if err != nil || len(msgs) != 2 || msgs[0].Content.Resource == nil || msgs[0].Content.Resource.URI != "test://x" {
				t.Errorf("PromptWithEmbeddedResource = %+v, %v", msgs, err)
			}
			msgs, err = conf.PromptWithImage(ctx)
			if err != nil || len(msgs) != 2 || msgs[0].Content.Type != "image" {
				t.Fatalf("PromptWithImage = %+v, %v", msgs, err)
			}
			checkRedPixel(t, msgs[0].Content.Data)
			if got, err := conf.CompleteArg1(ctx, "par"); err != nil || !slices.Equal(got, []string{"paris", "park", "party"}) {
				t.Errorf("CompleteArg1 = %q, %v", got, err)
			}
			got, err := conf.CompleteRecordID(ctx, "12", nil)
			if err != nil || !slices.Equal(got.Values, []string{"12", "123"}) || got.Total != 2 {
				t.Errorf("CompleteRecordID = %+v, %v", got, err)
			}
			if strings.HasPrefix(name, "mcp/") {
				return
			}
			// Over JSON-RPC the elicitation tools have no client to ask.
			if _, err := conf.Elicitation(ctx, "hi"); err == nil {
				t.Error("Elicitation over plain JSON-RPC succeeded")
			}
		})
	}
}
