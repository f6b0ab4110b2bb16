// Package taskbench measures what running a tool call as a task of the
// MCP Tasks extension (runtime/mcp/tasks, in memory) costs over the same
// call answered in its request: one 2026-07-28 client and server in this
// process (Server.InProcess), a tool that returns at once.
//
//   - plain: tools/call answered in the request (CallTool);
//   - task-get: the call creates a task (StartTool), which runs in a
//     goroutine of the server; the benchmark waits on the store for its
//     end and reads its result with one tasks/get: create plus result,
//     the least a client can do;
//   - task-follow: CallTool of the task tool, as a generated typed client
//     calls it (StartTool, then TaskHandle.Decode, which is CallTool's
//     path): the client follows the task on a subscriptions/listen
//     stream of its own (notifications/tasks) plus one tasks/get.
//
// BenchmarkTaskOverheadRedis has task-get and task-follow with the tasks
// on a real redis-server it starts (ext/redis's TaskStore and
// TaskExecutor), and redis-rtt/op, the server's round trips to Redis per
// task (a go-redis hook; the benchmark's own reads of the store taken
// off).
//
// cpu-ns/op is the CPU time this process (client, server, the task's
// goroutine) spent per call: unlike ns/op it does not grow when other
// processes take the cores. Every call's result is checked.
package taskbench
