package main

import (
	"context"

	"github.com/rpcgen/rpcgen/runtime/mcp"
)

//go:generate go tool rpcgen Tasks

// Tasks is the part of the conformance server the tasks-* scenarios ask
// for (the Tasks extension, SEP-2663): tools that run as tasks when the
// client declared the extension, under the names the scenarios expect. The
// server runs them through package runtime/mcp/tasks (main.go).
//
//rpcgen:service name=tasks
type Tasks interface {
	// Greet greets name at once; it never runs as a task.
	//
	//rpcgen:tool name=greet readonly openworld=false
	Greet(ctx context.Context, name string) (mcp.Content, error)

	// SlowCompute works for seconds seconds, reporting its progress each
	// second, then says what it computed; label names the work. It runs as
	// a task when the client declared the extension, and a cancelled one
	// stops at once.
	//
	//rpcgen:tool name=slow_compute readonly openworld=false task=optional
	SlowCompute(ctx context.Context, seconds int, label string) (mcp.Content, error)

	// FailingJob works for a moment, then fails with a tool error: its task
	// completes, with isError set. It runs only as a task.
	//
	//rpcgen:tool name=failing_job readonly openworld=false task=required
	FailingJob(ctx context.Context) (mcp.Content, error)

	// ProtocolErrorJob fails with a protocol error (-32603): its task
	// fails.
	//
	//rpcgen:tool name=protocol_error_job readonly openworld=false task=optional
	ProtocolErrorJob(ctx context.Context) (mcp.Content, error)

	// ConfirmDelete asks the user to confirm the deletion of filename
	// (key "confirm"), then says whether it deleted it (it deletes
	// nothing).
	//
	//rpcgen:tool name=confirm_delete idempotent openworld=false task=optional
	ConfirmDelete(ctx context.Context, filename string) (mcp.Content, error)

	// MultiInput asks the user two questions at once (keys "first" and
	// "second") and says what the answers were.
	//
	//rpcgen:tool name=multi_input readonly openworld=false task=optional
	MultiInput(ctx context.Context) (mcp.Content, error)

	// ToolWithTask asks the user's name on the call itself (key
	// "user_name", an input_required round), then becomes a task that
	// greets them.
	//
	//rpcgen:tool name=test_tool_with_task readonly openworld=false task=required taskbegins
	ToolWithTask(ctx context.Context) (mcp.Content, error)
}
