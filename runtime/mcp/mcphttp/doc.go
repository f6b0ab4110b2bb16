// Package mcphttp serves and calls the Model Context Protocol over HTTP: a
// Handler serves an mcp.Server at one endpoint to every client in use (the
// stateless Streamable HTTP of 2026-07-28, the session-based Streamable HTTP
// of 2025-03-26 to 2025-11-25, and the HTTP+SSE transport of 2024-11-05), and
// Connect calls such a server.
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
