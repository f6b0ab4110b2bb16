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
// A transport of another package must implement Transport (RoundTrip, Send,
// Close) and may implement the optional capabilities ConnectTransport looks
// for, each an interface of this package whose doc says what the transport
// gains by it:
//   - IncomingSetter: receives messages outside any RoundTrip (a session's
//     standalone stream);
//   - SessionIDReporter: tells middleware the session's id;
//   - EndpointReporter: tells Client.Endpoint and telemetry the server's
//     address (TransportNamer is its counterpart for Connect's Framer);
//   - SessionRenewer: lets the client start a new session when the server
//     ended the old one;
//   - RequestAnswerer: says the server answers every request, so a dual-era
//     client's probe waits for its answer.
//
// It speaks the protocol's vocabulary of package mcp and never imports the
// server (package mcpserver).
package mcpclient
