// Package mcp is the Model Context Protocol's vocabulary, shared by the
// server (package mcpserver), the client (package mcpclient) and the
// transports: the revisions from 2024-11-05 to the stateless 2026-07-28, the
// error codes and _meta keys, the method table (Method: one row per method,
// which every dispatcher, the client's retry policy and the HTTP transports
// read), and the types of the messages (Implementation, ToolInfo,
// CallToolResult, Content, ElicitParams, ...). It also holds what a
// generated typed MCP client calls (ToolCaller, FeatureCaller, CallTool and
// its kin), which needs no more than these words.
//
// It uses the standard library only and depends on neither side.
package mcp
