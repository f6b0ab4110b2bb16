// Package runtime is the JSON-RPC 2.0 runtime that rpcgen-generated code runs
// on: a generated client calls through a Caller, and a generated dispatcher is
// a Handler.
//
// A Conn carries messages both ways over a Framer (newline-delimited, or with
// Content-Length headers as LSP frames them, over any reader and writer):
// ServeStdio and Serve serve a Handler on one, DialCommand starts a server
// subprocess and returns a Conn to it, and Pipe joins two in memory. A
// Processor answers one message at a time, for transports without a stream
// such as HTTP POST. Requests are handled concurrently and can be cancelled;
// message size, nesting depth and the work in flight are bounded; and every
// bad message gets the error JSON-RPC 2.0 specifies while the connection
// keeps serving.
//
// The package uses the standard library only and links neither net nor any
// cryptography, so that a stdio server stays small and starts fast. JSON-RPC
// over HTTP is in package runtime/rpchttp; the Model Context Protocol, built
// on this package, is in runtime/mcp. What only generated code calls (the
// params decoders, the version guards) is in runtime/rpcimpl, off this page.
package runtime
