// Package jsonrpcws holds the interop tests of JSON-RPC over WebSocket with a
// library nobody here wrote, sourcegraph/jsonrpc2 with its gorilla/websocket
// adapter: its client calls an rpcgen server (ext/websocket), plain calls and
// a typed stream, and rpcgen's generated client calls a server built on it.
package jsonrpcws
