package mcp

import "encoding/json"

// TasksExtensionID identifies the Tasks extension (SEP-2663): a tools/call
// answered at once with a task the client then polls (tasks/get), answers
// input requests of (tasks/update) and cancels (tasks/cancel).
const TasksExtensionID = "io.modelcontextprotocol/tasks"

// ResultTypeTask is the resultType of a CreateTaskResult: the answer to a
// request that became a task.
const ResultTypeTask = "task"

// TaskStatus is the state of a task.
type TaskStatus string

// The statuses of a task: working and input_required until it ends
// completed, failed or cancelled.
const (
	TaskWorking       TaskStatus = "working"
	TaskInputRequired TaskStatus = "input_required"
	TaskCompleted     TaskStatus = "completed"
	TaskFailed        TaskStatus = "failed"
	TaskCancelled     TaskStatus = "cancelled"
)

// Terminal reports whether a task in status s has ended.
func (s TaskStatus) Terminal() bool {
	return s == TaskCompleted || s == TaskFailed || s == TaskCancelled
}

// Valid reports whether s is one of the statuses the extension defines.
func (s TaskStatus) Valid() bool {
	return s == TaskWorking || s == TaskInputRequired || s.Terminal()
}

// Task is a task as tasks/get answers it (a DetailedTask) and as a
// CreateTaskResult carries it (without InputRequests, Result and Error).
// Timestamps are RFC 3339 (ISO 8601) strings in UTC.
type Task struct {
	TaskID        string     `json:"taskId"`
	Status        TaskStatus `json:"status"`
	StatusMessage string     `json:"statusMessage,omitempty"`
	CreatedAt     string     `json:"createdAt"`
	LastUpdatedAt string     `json:"lastUpdatedAt"`
	// TTLMs is how long after CreatedAt the server keeps the task, in
	// milliseconds; nil is unlimited (null on the wire).
	TTLMs *int64 `json:"ttlMs"`
	// PollIntervalMs is how often the client should poll, in milliseconds
	// (0: not said).
	PollIntervalMs int64 `json:"pollIntervalMs,omitempty"`
	// InputRequests are the requests the task waits on the client for
	// (status input_required), by key: answer them with tasks/update.
	InputRequests map[string]InputRequest `json:"inputRequests,omitempty"`
	// Result is the request's result (status completed): for tools/call a
	// CallToolResult, isError included.
	Result json.RawMessage `json:"result,omitempty"`
	// Error is the JSON-RPC error the request failed with (status failed):
	// {"code", "message", "data"}.
	Error json.RawMessage `json:"error,omitempty"`
}

// InputRequest is one request a server asks of the client inside a task or
// an input_required result: elicitation/create, sampling/createMessage or
// roots/list, and its params.
type InputRequest struct {
	Method string          `json:"method"`
	Params json.RawMessage `json:"params,omitempty"`
}

// TaskIDParams are the params of tasks/get and tasks/cancel.
type TaskIDParams struct {
	TaskID string `json:"taskId"`
}

// UpdateTaskParams are the params of tasks/update: the answers to a task's
// input requests, by key.
type UpdateTaskParams struct {
	TaskID         string                     `json:"taskId"`
	InputResponses map[string]json.RawMessage `json:"inputResponses"`
}
