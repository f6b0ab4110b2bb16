// Package mcpclient calls Model Context Protocol servers, in every revision
// from 2024-11-05 to the stateless 2026-07-28: a Client connects to a server
// subprocess over its stdin and stdout (DialCommand), to a server over any
// runtime.Framer (Connect), or over a Transport of another package
// (ConnectTransport: package mcphttp's, or a server in the same process),
// negotiates the era and revision, and calls the server's tools, resources,
// prompts and completions. It answers what the server asks of the client
// (elicitation, sampling, roots), tries again what the connection lost when
// running it twice is harmless, and starts a new session when the server
// ended the old one. Generated typed MCP clients call through it.
//
// It speaks the protocol's vocabulary of package mcp and never imports the
// server (package mcpserver).
package mcpclient
