// Package mcpserver serves the Model Context Protocol, in every revision
// from 2024-11-05 to the stateless 2026-07-28. A Server offers tools,
// resources, resource templates, prompts and completions (those rpcgen
// generates from an interface, or hand-written ones) both to sessions that
// begin with initialize and to stateless 2026-07-28 requests, over stdio
// (ServeStdio), any runtime.Framer (Serve), a client in the same process
// (InProcess), or a transport of another package (package mcphttp) that
// feeds its sessions one message at a time.
//
// Handlers report progress, send log messages and learn whom they serve
// through their context (Progress, Log, ProtocolVersion), so service
// interfaces need no MCP types. Asking the client for input (elicitation,
// sampling, roots) is in package ask. This package uses the standard
// library only, links neither net nor any cryptography, and never imports
// the client (package mcpclient).
package mcpserver
