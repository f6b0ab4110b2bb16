// Package mcphttpclient connects an MCP client (package mcpclient) to a
// server over HTTP: Connect finds the newest revision and transport the
// server speaks (the stateless Streamable HTTP of 2026-07-28, the
// session-based Streamable HTTP of 2025-03-26 to 2025-11-25, or the HTTP+SSE
// transport of 2024-11-05), and NewStreamableTransport and DialSSE give a
// transport of one kind for mcpclient.ConnectTransport.
//
// Over Streamable HTTP every request is a POST whose response carries its
// answer (JSON, or an event stream with the server's requests and
// notifications about it first); a legacy session's standalone GET stream
// carries what the server sends on its own, and is resumed after a broken
// connection. An Authorizer (ext/oauth has one) gives requests their
// credentials and answers the server's challenges.
//
// It is the client's side only and links no server; package mcphttp serves.
package mcphttpclient
