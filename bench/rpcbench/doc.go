// Package rpcbench measures plain JSON-RPC calls of one method, add ({"a":int,"b":int}
// -> int), through rpcgen's generated client and dispatcher (package calc) and through
// other Go JSON-RPC libraries, on the same transports, next to two floors.
//
// BenchmarkJSONRPC/add/<transport>/c=<n>/impl=<name> is one call, client and server in
// the same benchmark, with n callers sharing one connection: n goroutines take call
// numbers from a shared counter until b.N calls are done, so ns/op is wall time per
// call with n calls in flight. Call i by caller w adds i and w+1 and the benchmark
// fails on a wrong sum, so every implementation does the whole round trip. B/op and
// allocs/op count both sides in process, and only the client's side on stdio, where
// the server is another process.
//
// Implementations: rpcgen (calc.NewCalcClient over runtime.Conn or rpchttp.Client,
// calc.NewCalcHandler behind it), sourcegraph (github.com/sourcegraph/jsonrpc2 with its
// plain object stream and default synchronous handler), jrpc2
// (github.com/creachadair/jrpc2 with handler.New), and netrpc (the standard library's
// net/rpc with net/rpc/jsonrpc, which speaks JSON-RPC 1.0: no "jsonrpc" member, params
// as a one-element array, method "Arith.Add"). golang.org/x/exp/jsonrpc2 is not
// measured: the newest golang.org/x/exp no longer has that package.
//
// Transport memory: in process without the operating system. rpcgen uses runtime.Pipe
// (a channel of messages), jrpc2 its channel.Direct, and sourcegraph and netrpc, which
// have no in-memory channel, net.Pipe.
//
// Transport ospipe: two os.Pipe pairs in one process. rpcgen and jrpc2 use newline
// framing (runtime.NewLineFramer, channel.Line); sourcegraph and netrpc write with
// encoding/json's Encoder, which ends every message with a newline, and read with its
// streaming Decoder, which needs no framing.
//
// Transport stdio: the test binary re-executes itself as the server (TestMain serves
// when RPCBENCH_SERVE names an implementation) and the client talks to the child's
// stdin and stdout with the same framing as ospipe; rpcgen dials with
// runtime.DialCommand and serves with runtime.ServeStdio. Starting the child is outside
// the timed loop.
//
// Transport http: one POST per call to an httptest server on loopback, through an
// http.Transport that keeps 64 idle connections so the c=16 rows reuse connections.
// rpcgen uses rpchttp.NewHandler and rpchttp.Client, jrpc2 its jhttp Bridge and
// Channel; sourcegraph and netrpc have no JSON-over-HTTP mode and are left out.
//
// Floor impl=pingpong sends the bytes of rpcgen's request for add(2, 3) and reads the
// bytes of its response, parsing no JSON: one line each way on memory (net.Pipe),
// ospipe and stdio (a subprocess that answers every line), a POST on http. One caller
// writes and then reads; several callers pipeline on the one stream, writing under a
// lock and taking the in-order responses from a reader goroutine.
//
// Floor impl=floor is the JSON work of a call alone, with no transport:
// encoding/json encodes the request struct, decodes it, encodes the response struct and
// decodes it. It is the same on every transport and repeated in each row for the ratios.
package rpcbench
