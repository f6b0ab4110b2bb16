// Package otelbench measures what tracing costs a call: one in-process call,
// client and server both in this process, as it is today (impl=rpcgen: no
// middleware), with ext/otel's middleware on both sides and tracing off
// (impl=otel-off: the OpenTelemetry API's no-op tracer and meter providers,
// what a program that links ext/otel but exports nothing runs), and with
// tracing on (impl=otel-on: the SDK recording every span, AlwaysSample, and
// every metric, into a manual reader; the ended spans go to a processor that
// drops them, so no exporter's cost is counted).
//
//   - BenchmarkTracing/jsonrpc/inprocess: a JSON-RPC call of add(a, b)
//     through runtime.WrapCaller (client middleware) into a runtime.Processor
//     (server middleware, Options.Middleware), in the caller's goroutine.
//   - BenchmarkTracing/mcp/inprocess/{legacy,modern}: an MCP tools/call of add
//     through mcpclient.Client (Options.Middleware) and mcpserver's InProcess
//     transport into a Session (mcpserver.Options.Middleware), in both eras; the trace context goes
//     in params._meta, as it does across processes.
//   - BenchmarkTracing/sdk-floor: the OpenTelemetry SDK alone doing what
//     otel-on records for one MCP call, with no rpcgen code: a client span
//     and its child server span through the same propagator, each with
//     otel-on's attributes, and on each side a duration and two in-flight
//     changes, into that side's instruments (otel-on's names and bucket
//     boundaries) with otel-on's attributes in prebuilt sets. otel-on's time
//     less otel-off's, less this, is what ext/otel adds on top of the SDK.
//     It leaves out what crossing a process makes any instrumentation do
//     besides the SDK's calls: the tool name read from params, the trace
//     context written into params._meta and read back from the request's
//     bytes, the request id's text, a clock read a side.
//   - BenchmarkTracing/mcp/inprocess/{legacy,modern}/impl=hand: the fair
//     floor, a hand-written minimal instrumentation (hand.go) doing all of
//     that with the SDK directly, no ext/otel code: otel-on's spans,
//     propagation, attributes and measurements for a tools/call
//     (TestHandRecordsWhatOtelOnRecords compares them), nothing else.
//     hand less otel-off is what any instrumentation costs such a call;
//     otel-on less hand is ext/otel's own share.
//
// Every benchmark checks the sum it gets back, and otel-on checks that the
// server span was the child of the client span. Besides ns/op (wall time),
// each reports cpu-ns/op, the CPU time the process spent per call (every
// thread, the garbage collector's included): on a machine shared with other
// work, the wall time also counts the waits for a core, and cpu-ns/op is the
// steadier measure.
package otelbench
