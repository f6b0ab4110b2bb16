// Package httpwire holds what both HTTP sides of MCP share, the server's
// (mcphttp) and the client's (mcphttpclient): the header names and values,
// the envelope of a message as routing reads it (sliced out, not decoded),
// and the Mcp-Param-* parameters of 2026-07-28 (a schema's x-mcp-header
// annotations and the header value encoding).
package httpwire
