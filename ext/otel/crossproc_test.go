package otel_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	rpcotel "github.com/rpcgen/rpcgen/ext/otel"
	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttpclient"
	"github.com/rpcgen/rpcgen/runtime/rpchttp"
)

// The cross-process tests start this test binary again as the server
// (childMode names what it serves), which exports its spans as JSON lines to
// the file childSpans names; the test, the client, records its own spans in
// memory, and then reads the server's.
const (
	childMode  = "RPCGEN_OTEL_CHILD"
	childSpans = "RPCGEN_OTEL_SPANS"
)

func TestMain(m *testing.M) {
	if mode := os.Getenv(childMode); mode != "" {
		if err := runChild(mode, os.Getenv(childSpans)); err != nil {
			fmt.Fprintln(os.Stderr, "child:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// runChild serves mode until its stdin closes, exporting every span to path.
func runChild(mode, path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	exp, err := stdouttrace.New(stdouttrace.WithWriter(f))
	if err != nil {
		return err
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	defer tp.Shutdown(context.Background())
	inst := rpcotel.New(rpcotel.WithTracerProvider(tp), rpcotel.WithPropagator(w3c))
	ctx := context.Background()
	switch mode {
	case "mcp-stdio":
		return newMCPServer(inst).ServeStdio(ctx)
	case "mcp-http":
		h := mcphttp.NewHandler(newMCPServer(inst), nil)
		defer h.Close()
		return serveHTTPUntilStdinCloses(inst.HTTPHandler(h))
	case "jsonrpc-http":
		add := runtime.HandlerFunc(func(ctx context.Context, req *runtime.Request) (json.RawMessage, error) {
			return json.RawMessage(`5`), nil
		})
		return serveHTTPUntilStdinCloses(inst.HTTPHandler(rpchttp.NewHandler(add, rpchttp.Options{Middleware: []runtime.Middleware{inst.Server()}})))
	}
	return fmt.Errorf("unknown mode %q", mode)
}

// serveHTTPUntilStdinCloses serves h on a free loopback port, prints its URL
// on stdout, and returns when stdin closes.
func serveHTTPUntilStdinCloses(h http.Handler) error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	hs := &http.Server{Handler: h}
	rpchttp.PromptShutdown(hs) // a connection dialled and never used does not hold Shutdown
	go hs.Serve(ln)
	fmt.Printf("http://%s/\n", ln.Addr())
	io.Copy(io.Discard, os.Stdin)
	return hs.Shutdown(context.Background())
}

// exported is a span as stdouttrace writes it.
type exported struct {
	Name        string
	SpanKind    int
	SpanContext struct{ TraceID, SpanID string }
	Parent      struct{ TraceID, SpanID string }
	Links       []struct {
		SpanContext struct{ TraceID, SpanID string }
	}
	Attributes []struct {
		Key   string
		Value struct{ Value any }
	}
}

func (e exported) attr(key string) string {
	for _, a := range e.Attributes {
		if a.Key == key {
			return fmt.Sprint(a.Value.Value)
		}
	}
	return ""
}

func readSpans(t *testing.T, path string) []exported {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var spans []exported
	dec := json.NewDecoder(f)
	for {
		var s exported
		if err := dec.Decode(&s); err == io.EOF {
			return spans
		} else if err != nil {
			t.Fatalf("server spans: %v", err)
		}
		spans = append(spans, s)
	}
}

// child returns the command that starts this binary as a server of mode, and
// the file its spans go to.
func child(t *testing.T, mode string) (*exec.Cmd, string) {
	path := t.TempDir() + "/spans.json"
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), childMode+"="+mode, childSpans+"="+path)
	cmd.Stderr = os.Stderr
	return cmd, path
}

// startHTTPChild starts an HTTP server child and returns its URL and a stop
// function that ends it and waits for it.
func startHTTPChild(t *testing.T, cmd *exec.Cmd) (string, func()) {
	t.Helper()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	url, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		cmd.Process.Kill()
		t.Fatalf("the server printed no URL: %v", err)
	}
	return strings.TrimSpace(url), func() {
		stdin.Close()
		if err := cmd.Wait(); err != nil {
			t.Errorf("server: %v", err)
		}
	}
}

// clientTelemetry records the client's spans in memory.
func clientTelemetry(t *testing.T) (*tracetest.InMemoryExporter, *rpcotel.Instrumentation) {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	t.Cleanup(func() { tp.Shutdown(context.Background()) })
	return exp, rpcotel.New(rpcotel.WithTracerProvider(tp), rpcotel.WithPropagator(w3c))
}

// oneTrace checks that the client's span named name and the server's span of
// the same name form one trace, the server's the child of the client's, and
// returns the server's.
func oneTrace(t *testing.T, exp *tracetest.InMemoryExporter, server []exported, name string) exported {
	t.Helper()
	var client tracetest.SpanStub
	n := 0
	for _, s := range exp.GetSpans() {
		if s.Name == name && s.SpanKind == trace.SpanKindClient {
			client, n = s, n+1
		}
	}
	if n != 1 {
		t.Fatalf("%d client spans named %q", n, name)
	}
	var found []exported
	for _, s := range server {
		if s.Name == name && s.SpanKind == int(trace.SpanKindServer) {
			found = append(found, s)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d server spans named %q in %+v", len(found), name, server)
	}
	s := found[0]
	if s.SpanContext.TraceID != client.SpanContext.TraceID().String() || s.Parent.SpanID != client.SpanContext.SpanID().String() {
		t.Fatalf("server span %q: trace %s, parent %s; client span: trace %s, span %s", name,
			s.SpanContext.TraceID, s.Parent.SpanID, client.SpanContext.TraceID(), client.SpanContext.SpanID())
	}
	return s
}

func TestAcrossProcessesMCPStdio(t *testing.T) {
	exp, inst := clientTelemetry(t)
	cmd, path := child(t, "mcp-stdio")
	ctx := context.Background()
	c, err := mcpclient.DialCommand(ctx, cmd, mcpclient.Options{ProtocolVersion: mcp.Version20251125, Middleware: []mcpclient.Middleware{inst.MCPClient()}})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.CallTool(ctx, "work", nil, nil); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	server := readSpans(t, path)
	s := oneTrace(t, exp, server, "tools/call work")
	for k, v := range map[string]string{"mcp.method.name": "tools/call", "gen_ai.tool.name": "work", "network.transport": "pipe", "mcp.protocol.version": "2025-11-25", "jsonrpc.request.id": "2"} {
		if got := s.attr(k); got != v {
			t.Errorf("server span %s = %q, want %q", k, got, v)
		}
	}
	// The client's span says the transport too: a pipe, no server address.
	for _, cs := range exp.GetSpans() {
		if cs.Name != "tools/call work" {
			continue
		}
		got := map[string]string{}
		for _, kv := range cs.Attributes {
			got[string(kv.Key)] = kv.Value.String()
		}
		if got["network.transport"] != "pipe" || got["server.address"] != "" {
			t.Errorf("client span: network.transport %q, server.address %q; want pipe and none", got["network.transport"], got["server.address"])
		}
	}
	oneTrace(t, exp, server, "initialize")
}

func TestAcrossProcessesMCPHTTP(t *testing.T) {
	for _, version := range []string{mcp.Version20251125, mcp.Version20260728} {
		t.Run(version, func(t *testing.T) {
			exp, inst := clientTelemetry(t)
			cmd, path := child(t, "mcp-http")
			url, stop := startHTTPChild(t, cmd)
			ctx := context.Background()
			c, err := mcphttpclient.Connect(ctx, url, &mcphttpclient.Options{MCP: mcpclient.Options{ProtocolVersion: version, Middleware: []mcpclient.Middleware{inst.MCPClient()}}})
			if err != nil {
				stop()
				t.Fatal(err)
			}
			err = c.CallTool(ctx, "work", nil, nil)
			c.Close()
			stop()
			if err != nil {
				t.Fatal(err)
			}
			s := oneTrace(t, exp, readSpans(t, path), "tools/call work")
			want := map[string]string{"network.transport": "tcp", "network.protocol.name": "http", "mcp.protocol.version": version}
			if version == mcp.Version20251125 {
				want["mcp.session.id"] = s.attr("mcp.session.id")
				if want["mcp.session.id"] == "" {
					t.Error("no mcp.session.id on a legacy session's span")
				}
			}
			for k, v := range want {
				if got := s.attr(k); got != v {
					t.Errorf("server span %s = %q, want %q", k, got, v)
				}
			}
			if len(s.Links) != 0 {
				t.Errorf("the server span links %v: the headers and _meta name the same parent", s.Links)
			}
		})
	}
}

func TestAcrossProcessesJSONRPCHTTP(t *testing.T) {
	exp, inst := clientTelemetry(t)
	cmd, path := child(t, "jsonrpc-http")
	url, stop := startHTTPChild(t, cmd)
	client := runtime.WrapCaller(rpchttp.NewClient(url), inst.Client())
	n, err := runtime.Call[int](context.Background(), client, "calc.add", nil)
	stop()
	if err != nil || n != 5 {
		t.Fatalf("add: %d, %v", n, err)
	}
	s := oneTrace(t, exp, readSpans(t, path), "calc.add")
	if s.attr("rpc.system.name") != "jsonrpc" || s.attr("network.protocol.name") != "http" {
		t.Errorf("server span attributes %+v", s.Attributes)
	}
}
