// Package mcp serves the Model Context Protocol, in every revision from
// 2024-11-05 to the stateless 2026-07-28, and holds the protocol's vocabulary
// that clients share: the revisions, error codes and _meta keys, the method
// table (Method, one row per method), and the messages' types. A Server
// offers tools, resources, resource templates, prompts and completions (those
// rpcgen generates from an interface, or hand-written ones) both to sessions
// that begin with initialize and to stateless 2026-07-28 requests, over stdio
// (ServeStdio) or any runtime.Framer (Serve).
//
// Handlers report progress, send log messages and learn whom they serve
// through their context (Progress, Log, ProtocolVersion), so service
// interfaces need no MCP types. Asking the client for input (elicitation,
// sampling, roots) is in package ask, the client in package mcpclient, and
// the HTTP transports in package mcphttp. This package uses the standard
// library only and links neither net nor any cryptography.
package mcp
