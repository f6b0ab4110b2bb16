// Package mcpbench measures MCP tools/call round trips, client and server
// together, on rpcgen and its peers, with the same tools and the same checks
// on every peer.
//
//	go test -run '^$' -bench ToolsCall -benchmem ./mcpbench
//	go test -run '^$' -bench 'ToolsCallHTTP|IdleSessions' -benchmem ./mcpbench
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
// an mcpserver.Server and calls it through the generated service.BenchMCPClient;
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
// Built with GOEXPERIMENT=jsonv2 the same code is the encoding/json/v2 floor
// that issue 32's targets are stated against.
//
// BenchmarkToolsCallLarge/large/inprocess/<era>/c=1/impl=<rpcgen|floor> is
// one in-process tools/call of the large tool, whose structured result is
// service.LargeN records, 1,055,711 bytes of JSON (LargeBytes, about 1 MiB):
// ids, ASCII names, tag lists, float scores and flags, taken from a list
// built once, so a call costs its JSON work alone. The server sends it with
// its text copy, as for the other tools; the client decodes it into
// []service.Record, and the first, a middle and the last record are checked.
// MB/s counts the structured result's bytes; B/op divided by LargeBytes is
// the bytes allocated per payload byte that issue 32's target is stated in.
// Only rpcgen and the floor serve it (LargeCaller).
//
// TestToolsCallAllocs pins rpcgen's allocations per in-process call (add and
// echo, both eras) at their exact count, so that a change that adds one fails.
//
// # Transports
//
// inprocess is each SDK's own in-memory transport: mcpserver.Server.InProcess for
// rpcgen (a synchronous Session.Handle on the caller's goroutine), the Go
// SDK's NewInMemoryTransports (a net.Pipe with its reader goroutines),
// mcp-go's NewInProcessClient (a direct call into the server), and a direct
// call of the reference server's handle function. pipes is a pair of os.Pipe
// in one process, newline-delimited JSON, served by each SDK's stream server
// (mcpserver.Server.Serve with a line framer, the Go SDK's IOTransport, mcp-go's
// StdioServer.Listen) and read by its stream client (mcp.Connect, IOTransport,
// transport.NewIO). stdio starts this test binary again as the server (see
// ServeEnv and TestMain) and talks to it over its stdin and stdout with each
// SDK's subprocess client (mcp.DialCommand, CommandTransport,
// transport.NewStdioWithOptions); every peer's server is therefore built by
// the same compiler with the same flags; B/op and allocs/op of the stdio rows
// count the client's process only. A connection is opened per sub-benchmark
// run; its setup and one first call are not timed.
//
// # Streamable HTTP
//
// BenchmarkToolsCallHTTP/<tool>/<json|sse>/<era>/c=<n>/impl=<peer> is the same
// call over Streamable HTTP: each peer's server is an http.Handler served by
// net/http on a fresh 127.0.0.1 listener, and every peer is called through
// one client (http_client.go), so the columns differ by their servers only.
// The client is a plain net/http client with keep-alive connections: it
// assembles each tools/call body from prepared pieces (a unique id, add's
// operands), sends the headers of its era (legacy: Mcp-Session-Id and
// MCP-Protocol-Version after initialize; modern: MCP-Protocol-Version,
// Mcp-Method and Mcp-Name), reads the whole response, checks its media type
// against the row (application/json, or text/event-stream whose last event
// with data is the response) and decodes it with encoding/json to check the
// id and the result. The legacy rows open one session per connection (initialize,
// notifications/initialized; DELETE at the end), untimed.
//
// impl=rpcgen is mcphttp.NewHandler over the generated tools, one handler
// for both eras, with Options.SSE for the sse rows. impl=gosdk is the Go
// SDK's StreamableHTTPHandler: stateful (sessions) for legacy and Stateless
// for modern, because its stateful handler refuses 2026-07-28 requests;
// JSONResponse for the json rows (its default is an event stream). impl=mcpgo
// and impl=mcpgo-validate are mcp-go's StreamableHTTPServer with its defaults,
// both eras on one handler; it answers with an event stream only after a
// notification, so for the sse rows a tool middleware calls the session's
// UpgradeToSSEWhenReceiveNotification. impl=reference (reference_http.go) is
// the reference server's JSON work behind the smallest net/http handler:
// decode the body once into concrete structs, a map of legacy sessions,
// Mcp-Method and Mcp-Name checked against the body, a loopback Host check,
// and the same event framing as rpcgen for the sse rows. The report adds a
// "rpcgen / reference" column: issue 4's target is at most 1.1.
//
// BenchmarkIdleSessions/legacy/sessions=1000/impl=<peer> measures what an idle
// legacy Streamable HTTP session costs a server: per operation, a fresh
// server, 1000 sessions initialized from 8 clients, every connection closed,
// then the live heap (after runtime.GC) and the goroutine count compared
// with their values before the first session. heap-B/session and
// goroutines/session are the medians over the operations (issue 6's target:
// at most 1 KiB and none); ns/op is the time of one whole operation.
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
