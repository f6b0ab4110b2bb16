package writer

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
)

// connect serves impl through the generated RegisterWriter and returns an
// in-process client of the given revision and the generated typed client.
func connect(t *testing.T, version string) (*mcpclient.Client, *WriterMCPClient) {
	t.Helper()
	srv := mcpserver.New(mcp.Implementation{Name: "writer", Version: "1"}, nil)
	RegisterWriter(srv, impl{})
	c, err := mcpclient.ConnectTransport(context.Background(), srv.InProcess(), mcpclient.Options{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, NewWriterMCPClient(c)
}

func wantCode(t *testing.T, err error, code int64) {
	t.Helper()
	var re *runtime.Error
	if !errors.As(err, &re) || re.Code != code {
		t.Fatalf("error %v, want a *runtime.Error with code %d", err, code)
	}
}

func TestPrompts(t *testing.T) {
	for _, v := range []string{mcp.Version20251125, mcp.Version20260728} {
		t.Run(v, func(t *testing.T) {
			c, typed := connect(t, v)
			ctx := context.Background()
			res, err := c.GetPrompt(ctx, "greet", map[string]string{"name": "Ada"})
			if err != nil || len(res.Messages) != 1 || res.Messages[0].Content.Text != "Hello Ada" {
				t.Fatalf("greet without tone: %+v, %v", res, err)
			}
			res, err = c.GetPrompt(ctx, "greet", map[string]string{"name": "Ada", "tone": "casual"})
			if err != nil || res.Messages[0].Content.Text != "Hello Ada (casual)" {
				t.Fatalf("greet casual: %+v, %v", res, err)
			}
			// An enum argument outside the enum is invalid params, for an
			// optional argument and for a required one.
			_, err = c.GetPrompt(ctx, "greet", map[string]string{"name": "Ada", "tone": "rude"})
			wantCode(t, err, runtime.CodeInvalidParams)
			_, err = c.GetPrompt(ctx, "review", map[string]string{"draft": "d", "tone": ""})
			wantCode(t, err, runtime.CodeInvalidParams)
			// A missing required argument is refused before the method runs.
			_, err = c.GetPrompt(ctx, "review", map[string]string{"draft": "d"})
			wantCode(t, err, runtime.CodeInvalidParams)
			// The generated client goes through prompts/get.
			text, err := typed.Review(ctx, "my draft", Formal)
			if err != nil || text != `Review "my draft" in a formal tone` {
				t.Fatalf("typed Review: %q, %v", text, err)
			}
			// Enum arguments complete by prefix.
			comp, err := c.Complete(ctx, mcp.CompletionRef{Type: "ref/prompt", Name: "greet"}, "tone", "f", nil)
			if err != nil || !slices.Equal(comp.Values, []string{"formal"}) {
				t.Fatalf("complete tone: %+v, %v", comp, err)
			}
		})
	}
}

func TestResourceTemplate(t *testing.T) {
	for _, v := range []string{mcp.Version20251125, mcp.Version20260728} {
		t.Run(v, func(t *testing.T) {
			c, typed := connect(t, v)
			ctx := context.Background()
			// The typed client escapes the variables; the server decodes them.
			p, err := typed.Page(ctx, "war & peace/2", 12)
			if err != nil || p != (Page{Book: "war & peace/2", Number: 12}) {
				t.Fatalf("typed Page: %+v, %v", p, err)
			}
			contents, err := c.ReadResource(ctx, "books://dune/pages/7")
			if err != nil || len(contents) != 1 || contents[0].Text != `{"book":"dune","number":7}` || contents[0].MIMEType != "application/json" {
				t.Fatalf("read: %+v, %v", contents, err)
			}
			// A number variable that is not a number: no such resource.
			notFound := int64(-32002)
			if v == mcp.Version20260728 {
				notFound = runtime.CodeInvalidParams
			}
			_, err = c.ReadResource(ctx, "books://dune/pages/seven")
			wantCode(t, err, notFound)
			comp, err := c.Complete(ctx, mcp.CompletionRef{Type: "ref/resource", URI: "books://{book}/pages/{number}"}, "book", "d", nil)
			if err != nil || !slices.Equal(comp.Values, []string{"dune", "dracula"}) {
				t.Fatalf("complete book: %+v, %v", comp, err)
			}
		})
	}
}
