// Package mcphttp serves the Model Context Protocol over HTTP: a Handler
// serves an mcpserver.Server at one endpoint to every client in use (the
// stateless Streamable HTTP of 2026-07-28, the session-based Streamable HTTP
// of 2025-03-26 to 2025-11-25, and the HTTP+SSE transport of 2024-11-05).
// It is the server's side only and links no client: package mcphttpclient
// calls such a server.
//
// Besides the calls' responses, a Handler carries what the server sends on
// its own: a request a handler sends the client (elicitation, sampling,
// roots) goes out at once on its call's stream, and the client's answer
// comes back in a POST of its own; messages unrelated to any request
// (resources/updated, list_changed) go on a legacy session's standalone GET
// stream (kept for a GET opened later) or its HTTP+SSE stream, and in
// 2026-07-28 on the subscriptions/listen streams, which Shutdown ends with
// their complete result.
//
// A Handler is safe by default: it checks Origin (and Host on a loopback
// listener), bounds bodies, sessions and their idle time, and keeps the
// events of legacy streams so a client can resume one after a broken
// connection. Serve it on 127.0.0.1 when it is for local clients, and shut it
// down with Handler.Shutdown alongside http.Server.Shutdown, which does not
// end long-lived streams on its own.
//
// It is a package of its own so that a program serving MCP over stdio only
// does not link net/http.
package mcphttp
