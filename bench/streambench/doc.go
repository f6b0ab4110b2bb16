// Package streambench measures JSON-RPC between services over sockets and
// WebSocket: rpcgen (runtime/rpcnet over TCP, ext/websocket over WebSocket)
// against go-ethereum's rpc package over WebSocket and creachadair/jrpc2 over
// TCP, each through its own client and server on loopback.
//
//   - BenchmarkSocketCall: the latency of one call, echo(7) → 7, from one
//     caller at a time.
//   - BenchmarkStream10k: one stream of 10,000 items {"n": i}, from the call
//     until the client has decoded the last item: rpcgen's typed stream
//     (runtime.Stream and runtime.ServeStream, what generated stream methods
//     are), go-ethereum's subscription (notifier.Notify, client.Subscribe
//     into a channel), jrpc2's server push (Server.Notify, ClientOptions.
//     OnNotify) before the call's result. It reports ns/item and allocs/item
//     (both processes' allocations, server and client, in this one test
//     binary).
//
// Every benchmark checks what it received: the echoed value, and every item
// in order.
package streambench
