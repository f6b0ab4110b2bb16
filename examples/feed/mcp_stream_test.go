package feed_test

import (
	"context"
	"errors"
	"iter"
	"net/http/httptest"
	"testing"

	"github.com/rpcgen/rpcgen/examples/feed"
	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttpclient"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
)

// failing is a Market whose Watch fails after its third quote.
type failing struct{ feed.Market }

var errHalted = &runtime.Error{Code: 4201, Message: "trading halted", Data: []byte(`{"symbol":"ACME"}`)}

func (f *failing) Watch(ctx context.Context, symbol string, count int) iter.Seq2[feed.Quote, error] {
	inner := f.Market.Watch(ctx, symbol, count)
	return func(yield func(feed.Quote, error) bool) {
		n := 0
		for q, err := range inner {
			if n == 3 {
				yield(feed.Quote{}, errHalted)
				return
			}
			n++
			if !yield(q, err) {
				return
			}
		}
	}
}

// drain collects a stream's quotes up to its first error.
func drain(seq iter.Seq2[feed.Quote, error]) (seqs []int, last error) {
	for q, err := range seq {
		if err != nil {
			return seqs, err
		}
		seqs = append(seqs, q.Seq)
	}
	return seqs, nil
}

// TestStreamFailingMidwayOverMCP: a stream that fails after three quotes
// gives the generated MCP client those three quotes and then the error the
// server returned, as the generated JSON-RPC client gets them, in both eras,
// in process, over Streamable HTTP and over the 2024-11-05 HTTP+SSE
// transport. Before, the MCP client got the error alone.
func TestStreamFailingMidwayOverMCP(t *testing.T) {
	ctx := context.Background()
	impl := &failing{}

	// JSON-RPC, the reference.
	a, b := runtime.Pipe()
	server := runtime.NewConn(a, runtime.Options{Handler: feed.NewQuotesHandler(impl)})
	defer server.Close()
	conn := runtime.NewConn(b, runtime.Options{})
	defer conn.Close()
	wantSeqs, wantErr := drain(feed.NewQuotesClient(conn).Watch(ctx, "ACME", 10))
	var re *runtime.Error
	if len(wantSeqs) != 3 || !errors.As(wantErr, &re) || re.Code != 4201 {
		t.Fatalf("JSON-RPC: quotes %v, then %v", wantSeqs, wantErr)
	}

	srv := mcpserver.New(mcp.Implementation{Name: "quotes", Version: "1"}, nil)
	srv.AddTools(feed.QuotesTools(impl)...)
	ts := httptest.NewServer(mcphttp.NewHandler(srv, nil))
	defer ts.Close()

	connect := map[string]func(version string) (*mcpclient.Client, error){
		"in process": func(version string) (*mcpclient.Client, error) {
			return mcpclient.ConnectTransport(ctx, srv.InProcess(), mcpclient.Options{ProtocolVersion: version})
		},
		"streamable HTTP": func(version string) (*mcpclient.Client, error) {
			return mcphttpclient.Connect(ctx, ts.URL, &mcphttpclient.Options{Transport: "streamable", HTTPClient: ts.Client(),
				MCP: mcpclient.Options{ProtocolVersion: version}})
		},
		"HTTP+SSE": func(version string) (*mcpclient.Client, error) {
			return mcphttpclient.Connect(ctx, ts.URL, &mcphttpclient.Options{Transport: "sse", HTTPClient: ts.Client(),
				MCP: mcpclient.Options{ProtocolVersion: version}})
		},
	}
	for name, dial := range connect {
		for _, version := range []string{mcp.Version20241105, mcp.Version20251125, mcp.Version20260728} {
			if name == "HTTP+SSE" && version == mcp.Version20260728 {
				continue // the 2024-11-05 transport carries legacy sessions only
			}
			t.Run(name+"/"+version, func(t *testing.T) {
				c, err := dial(version)
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				seqs, err := drain(feed.NewQuotesMCPClient(c).Watch(ctx, "ACME", 10))
				var got *runtime.Error
				if !errors.As(err, &got) || got.Code != re.Code || got.Message != re.Message || string(got.Data) != string(re.Data) {
					t.Fatalf("error %v, want %v", err, re)
				}
				if len(seqs) != len(wantSeqs) {
					t.Fatalf("quotes %v before the error, want %v as over JSON-RPC", seqs, wantSeqs)
				}
				for i := range seqs {
					if seqs[i] != wantSeqs[i] {
						t.Fatalf("quotes %v before the error, want %v as over JSON-RPC", seqs, wantSeqs)
					}
				}
			})
		}
	}
}
