// Package mcpbench measures MCP tools/call round trips, client and server
// together, on rpcgen and its peers, with the same tools and the same checks
// on every peer.
//
//	go test -run '^$' -bench ToolsCall -benchmem ./mcpbench
//	go run ./cmd/report -pkgs ./mcpbench    # interleaved rounds, Markdown tables
//
// # Workloads
//
// BenchmarkToolsCall/<tool>/<transport>/<era>/c=<n>/impl=<peer> makes one
// tools/call per operation. The tools are add ({"a":int,"b":int} → structured
// {"sum":int}) and echo ({"text": 1 KiB of ASCII prose} → structured
// {"text": the same}); each peer returns the structured result and its text
// copy, as MCP recommends. Every answer is checked (the sum of call i is
// i+1000; echo returns exactly what it was sent), so a peer cannot win by
// doing less. Each client is the peer's own, used as its documentation shows;
// the Go SDK and mcp-go clients hand back the structured result as a map,
// rpcgen's generated client and the reference decode it into a struct.
//
// # Peers
//
// impl=rpcgen serves service.Impl through the generated service.BenchTools on
// an mcp.Server and calls it through the generated service.BenchMCPClient;
// its arguments are decoded and validated by generated code. impl=gosdk is
// github.com/modelcontextprotocol/go-sdk v1.8.0 with typed handlers
// registered by mcp.AddTool, which infers the schemas from the Go types and
// validates arguments against them, called through its ClientSession.
// impl=mcpgo is github.com/mark3labs/mcp-go v1.2.1 with schemas from
// mcp.WithInputSchema/WithOutputSchema and mcp.NewStructuredToolHandler,
// which binds the arguments with encoding/json and validates nothing;
// impl=mcpgo-validate adds server.WithInputSchemaValidation, which checks
// the arguments against the input schema as rpcgen and the Go SDK do
// (TestValidation shows which peers reject a call without "b"). impl=reference
// (reference_server.go, reference_client.go) is the smallest server and client
// that do the same work with encoding/json: concrete structs for every
// message, a switch on method and tool, one goroutine per request on a
// stream, and no validation beyond what decoding checks.
//
// impl=floor, in the in-process rows only, is the JSON work alone: encoding
// and decoding the four messages of one call (request out, request in,
// response out with the text copy, response in) into concrete structs with
// encoding/json, with no framing, routing, validation or transport. It is
// the yardstick of issue 6's in-process targets (at most 2× the floor).
//
// # Transports
//
// inprocess is each SDK's own in-memory transport: mcp.ConnectSession for
// rpcgen (a synchronous Session.Handle on the caller's goroutine), the Go
// SDK's NewInMemoryTransports (a net.Pipe with its reader goroutines),
// mcp-go's NewInProcessClient (a direct call into the server), and a direct
// call of the reference server's handle function. pipes is a pair of os.Pipe
// in one process, newline-delimited JSON, served by each SDK's stream server
// (mcp.Server.Serve with a line framer, the Go SDK's IOTransport, mcp-go's
// StdioServer.Listen) and read by its stream client (mcp.Connect, IOTransport,
// transport.NewIO). stdio starts this test binary again as the server (see
// ServeEnv and TestMain) and talks to it over its stdin and stdout with each
// SDK's subprocess client (mcp.DialCommand, CommandTransport,
// transport.NewStdioWithOptions); every peer's server is therefore built by
// the same compiler with the same flags; B/op and allocs/op of the stdio rows
// count the client's process only. A connection is opened per sub-benchmark
// run; its setup and one first call are not timed. Streamable HTTP rows belong
// to the MCP-over-HTTP issue and are not here yet.
//
// # Eras and concurrency
//
// legacy pins every client to 2025-11-25 (initialize, then calls within the
// session); modern pins it to 2026-07-28 (stateless, the _meta members on
// every request, resultType and serverInfo on every result). Every peer speaks
// both on every transport in these versions, and the negotiated version is
// checked when connecting, so no row is omitted. c=<n> runs n goroutines on
// one connection that share b.N through an atomic counter, so exactly n calls
// are in flight whatever GOMAXPROCS is; ns/op is then wall time per call, and
// with more callers than cores it measures throughput, not latency.
//
// # What the peers do that shows in the numbers
//
// The Go SDK decodes every message with github.com/segmentio/encoding/json
// through a fresh Decoder (its internal/json.Unmarshal), which allocates a
// large read buffer each time: about 400 kB per call. mcp-go's stdio server
// reads each line on a new goroutine and runs tool calls on a pool of five
// workers; its stdio session is a package-level variable, so only one of its
// stdio servers can run in a process at a time (the pipes benchmarks run them
// one after another).
package mcpbench
