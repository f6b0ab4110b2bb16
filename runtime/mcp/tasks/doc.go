// Package tasks is the server's runtime for the Tasks extension of MCP
// (io.modelcontextprotocol/tasks, SEP-2663): a tools/call answered at once
// with a task, which runs on while the client polls it (tasks/get), answers
// the questions it asks (tasks/update) and may cancel it (tasks/cancel).
//
// Enable adds the extension to a server: it declares it, serves its
// methods, and runs the tools whose mcpserver.Tool.Task is set as tasks
// when their client declared the extension. Tasks are kept in a Store
// (MemoryStore by default) and run by an Executor (a goroutine of this
// process by default); both are interfaces, so that tasks can live in a
// shared database and run on any replica's workers.
//
// Inside a task the tool's handler is the same code as in a plain call:
// package ask's questions become the task's inputRequests (status
// input_required) until the client answers them; mcpserver.Progress sets
// the task's statusMessage; its context ends when the client cancels the
// task or the task's time to live is over.
package tasks
