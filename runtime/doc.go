// Package runtime carries JSON-RPC 2.0 messages between rpcgen-generated clients and
// dispatchers over connections, over framed streams and in process (Processor).
// JSON-RPC over HTTP is in package runtime/rpchttp, so that a program that only serves
// stdio does not link net/http.
package runtime
