// Package otel is OpenTelemetry for rpcgen: spans and metrics for every
// JSON-RPC and MCP request on both sides, named and attributed as the
// OpenTelemetry semantic conventions for RPC (rpc.system.name "jsonrpc") and
// for MCP say, and trace context that follows a call across processes, in
// params._meta for MCP on every transport (SEP-414) and in HTTP headers over
// rpchttp and mcphttp. It is built on rpcgen's middleware
// (runtime.Middleware, runtime.ClientMiddleware, mcp.ClientMiddleware), in a
// module of its own, so programs that do not trace never download
// OpenTelemetry.
//
//	inst := otel.New() // the global tracer and meter providers and propagator
//	srv := mcpserver.New(info, &mcpserver.Options{Middleware: []runtime.Middleware{inst.MCPServer()}})
//	mux.Handle("/mcp", inst.HTTPHandler(mcphttp.NewHandler(srv, nil)))
//
//	client, err := mcp.DialCommand(ctx, cmd, mcp.ClientOptions{Middleware: []mcp.ClientMiddleware{inst.MCPClient()}})
//	calc := NewCalculatorClient(runtime.WrapCaller(rpchttp.NewClient(url), inst.Client()))
//
// With the OpenTelemetry API's no-op tracer and meter providers (Off), the
// middleware records nothing and costs a call without trace context nothing;
// trace context a request brings still reaches the handler's outgoing calls,
// as with the no-op tracer.
//
// See docs/observability.md for the spans, attributes and metrics.
package otel
