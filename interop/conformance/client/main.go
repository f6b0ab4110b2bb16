// Command client is the MCP client the official conformance suite's client
// scenarios run: rpcgen's MCP client (package runtime/mcp over
// runtime/mcp/mcphttp), driven the way an MCP host drives it.
//
//	conformance client --command "client" --scenario tools_call
//
// The suite starts a mock server for the scenario, then runs the command with
// the server's URL as its last argument, the scenario's name in
// MCP_CONFORMANCE_SCENARIO and the protocol revision in
// MCP_CONFORMANCE_PROTOCOL_VERSION. The client connects the way its options
// say (a 2025 revision: exactly that revision's initialize; 2026-07-28: the
// dual-era probe, server/discover first), then does what the scenario asks of
// a host: list the tools and call them, answering the server's questions
// (elicitation, sampling, roots) with its handlers. Everything the scenario
// judges (headers, _meta, retries, defaults, resumption) is the client
// library's own behaviour; this program only chooses what to call.
//
// It exits 0 when every step worked, 1 with the error on stderr otherwise, and
// 2 for a scenario it does not know. The OAuth scenarios (auth/*) are in
// auth.go.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"time"

	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttpclient"
)

// scenarios maps each scenario this client knows to what a host does in it.
var scenarios = map[string]func(context.Context, *host) error{
	"initialize":                          listAndCallAll,
	"tools_call":                          listAndCallAll,
	"elicitation-sep1034-client-defaults": listAndCallAll,
	"sse-retry":                           listAndCallAll,
	"request-metadata":                    listAndCallAll,
	"sep-2322-client-request-state":       listAndCallAll,
	"http-standard-headers":               useEverything,
	"http-custom-headers":                 listAndCallAll,
	"http-invalid-tool-headers":           listAndCallAll,
	"json-schema-ref-no-deref":            listOnly,
	"json-schema-2020-12-preservation":    echoSchema,
}

func main() {
	name := os.Getenv("MCP_CONFORMANCE_SCENARIO")
	if len(os.Args) < 2 || name == "" {
		fmt.Fprintln(os.Stderr, "usage: MCP_CONFORMANCE_SCENARIO=name [MCP_CONFORMANCE_PROTOCOL_VERSION=v] client URL")
		os.Exit(2)
	}
	run := scenarios[name]
	if run == nil {
		fmt.Fprintf(os.Stderr, "client: scenario %q is not one this client runs\n", name)
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Second)
	defer cancel()
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	h := &host{url: os.Args[len(os.Args)-1], version: os.Getenv("MCP_CONFORMANCE_PROTOCOL_VERSION"), logger: logger}
	err := run(ctx, h)
	if h.c != nil {
		if cerr := h.c.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "client:", err)
		os.Exit(1)
	}
}

// host is the MCP host: one client connection and the handlers that answer
// the server's questions.
type host struct {
	url, version string
	logger       *slog.Logger
	c            *mcpclient.Client
	authorizer   mcphttpclient.Authorizer // the OAuth scenarios'
}

// connect connects with every client feature declared: elicitation (the
// user accepts, filling in nothing, so the schema's defaults apply), sampling
// (a fixed answer) and roots (one).
func (h *host) connect(ctx context.Context) error {
	opts := mcpclient.Options{
		Info:   mcp.Implementation{Name: "rpcgen-conformance-client", Version: "1.0.0"},
		Logger: h.logger,
		OnElicit: func(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: json.RawMessage(`{}`)}, nil
		},
		OnSample: func(ctx context.Context, p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
			return &mcp.CreateMessageResult{Role: "assistant", Content: mcp.TextContent("Paris"), Model: "rpcgen-conformance-model", StopReason: "endTurn"}, nil
		},
		Roots: func(ctx context.Context) ([]mcp.Root, error) {
			return []mcp.Root{{URI: "file:///conformance/root", Name: "conformance root"}}, nil
		},
	}
	// A 2025 revision is asked for exactly; for 2026-07-28 (or none) the
	// client runs its dual-era probe, as a host would by default.
	if slices.Contains(mcp.LegacyVersions, h.version) {
		opts.ProtocolVersion = h.version
	}
	c, err := mcphttpclient.Connect(ctx, h.url, &mcphttpclient.Options{MCP: opts, Authorizer: h.authorizer})
	if err != nil {
		return err
	}
	h.c = c
	return nil
}

func listOnly(ctx context.Context, h *host) error {
	if err := h.connect(ctx); err != nil {
		return err
	}
	_, err := h.c.ListTools(ctx)
	return err
}

// listAndCallAll lists the tools and calls each with arguments made from its
// input schema.
func listAndCallAll(ctx context.Context, h *host) error {
	if err := h.connect(ctx); err != nil {
		return err
	}
	tools, err := h.c.ListTools(ctx)
	if err != nil {
		return err
	}
	given, err := toolCalls()
	if err != nil {
		return err
	}
	for _, t := range tools {
		var args any = given[t.Name]
		if given[t.Name] == nil {
			if args, err = sampleArguments(t.InputSchema); err != nil {
				return fmt.Errorf("tool %s: %v", t.Name, err)
			}
		}
		if _, err := h.c.CallToolRaw(ctx, mcp.CallToolParams{Name: t.Name, Arguments: args}); err != nil {
			return fmt.Errorf("call %s: %w", t.Name, err)
		}
	}
	return nil
}

// useEverything lists and calls the tools, then lists, reads and gets every
// resource and prompt the server has.
func useEverything(ctx context.Context, h *host) error {
	if err := listAndCallAll(ctx, h); err != nil {
		return err
	}
	if err := readAll(ctx, h); err != nil {
		return err
	}
	prompts, err := h.c.ListPrompts(ctx)
	if err != nil {
		return err
	}
	for _, p := range prompts {
		args := map[string]string{}
		for _, a := range p.Arguments {
			args[a.Name] = "conformance"
		}
		if _, err := h.c.GetPrompt(ctx, p.Name, args); err != nil {
			return fmt.Errorf("get prompt %s: %w", p.Name, err)
		}
	}
	return nil
}

func readAll(ctx context.Context, h *host) error {
	resources, err := h.c.ListResources(ctx)
	if err != nil {
		return err
	}
	for _, r := range resources {
		if _, err := h.c.ReadResource(ctx, r.URI); err != nil {
			return fmt.Errorf("read %s: %w", r.URI, err)
		}
	}
	return nil
}

// echoSchema passes the input schema of json_schema_2020_12_tool, as the
// client received it, to json_schema_echo.
func echoSchema(ctx context.Context, h *host) error {
	if err := h.connect(ctx); err != nil {
		return err
	}
	tools, err := h.c.ListTools(ctx)
	if err != nil {
		return err
	}
	i := slices.IndexFunc(tools, func(t mcp.ToolInfo) bool { return t.Name == "json_schema_2020_12_tool" })
	if i < 0 {
		return fmt.Errorf("the server lists no json_schema_2020_12_tool")
	}
	args := map[string]json.RawMessage{"schema": tools[i].InputSchema}
	_, err = h.c.CallToolRaw(ctx, mcp.CallToolParams{Name: "json_schema_echo", Arguments: args})
	return err
}
