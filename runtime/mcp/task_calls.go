package mcp

import (
	"context"
	"encoding/json"
	"errors"
)

// A generated typed MCP client gives each tool that may run as a task
// (//rpcgen:tool task=optional|required) a Start method beside its
// blocking one: it calls the tool without following the task the server
// creates and returns a typed handle on it (*ToolTask), whose Result
// follows the task and decodes the method's result.

// TaskStarter is a ToolCaller that can call a tool without following the
// task the server creates for the call; *mcpclient.Client is one.
type TaskStarter interface {
	// StartToolTask calls the tool name with args and returns a handle on
	// the call: on the task the server created, or, when the server
	// answered the call at once, on that result (a completed task with no
	// ID).
	StartToolTask(ctx context.Context, name string, args any) (TaskHandle, error)
}

// TaskHandle is a task as a client follows it; *mcpclient.TaskHandle is
// one.
type TaskHandle interface {
	// ID is the task's ID ("" for a call answered at once).
	ID() string
	// Task is the task as last seen.
	Task() Task
	// Refresh reads the task's state (tasks/get).
	Refresh(ctx context.Context) (*Task, error)
	// Answer answers its input requests by key (tasks/update).
	Answer(ctx context.Context, answers map[string]json.RawMessage) error
	// Cancel asks the server to cancel it (tasks/cancel).
	Cancel(ctx context.Context) error
	// Decode follows it until it ends and decodes its structured result
	// into result (nil: none wanted).
	Decode(ctx context.Context, result any) error
}

// ErrNoTasks is what StartToolTask returns for a ToolCaller that cannot
// start tasks (one that is not a TaskStarter).
var ErrNoTasks = errors.New("mcp: the tool caller cannot start tasks (it is not an mcp.TaskStarter, as *mcpclient.Client is)")

// ToolTask is a typed handle on a call of a tool started as a task (a
// generated client's Start method): R is the method's result (struct{}
// for a method that returns only an error). The handle's methods are safe
// to call from one goroutine at a time.
type ToolTask[R any] struct {
	h       TaskHandle
	wrapped bool // the result comes as {"result": ...} (CallToolWrapped)
}

// StartToolTask calls the tool name through c with args and returns a
// typed handle on the call (see ToolTask). It is the body of a generated
// MCP client's Start methods whose result is a JSON object (or none).
func StartToolTask[R any](ctx context.Context, c ToolCaller, name string, args any) (*ToolTask[R], error) {
	return startToolTask[R](ctx, c, name, args, false)
}

// StartToolTaskWrapped is StartToolTask for a tool whose result the server
// wraps as {"result": ...} (see CallToolWrapped).
func StartToolTaskWrapped[R any](ctx context.Context, c ToolCaller, name string, args any) (*ToolTask[R], error) {
	return startToolTask[R](ctx, c, name, args, true)
}

func startToolTask[R any](ctx context.Context, c ToolCaller, name string, args any, wrapped bool) (*ToolTask[R], error) {
	s, ok := c.(TaskStarter)
	if !ok {
		return nil, ErrNoTasks
	}
	h, err := s.StartToolTask(ctx, name, args)
	if err != nil {
		return nil, typedError(err)
	}
	return &ToolTask[R]{h: h, wrapped: wrapped}, nil
}

// ID returns the task's ID, which a client may keep to follow the task
// again later from another connection; "" when the server answered the
// call at once.
func (t *ToolTask[R]) ID() string { return t.h.ID() }

// Task returns the task as last seen: its status, statusMessage
// (progress), input requests.
func (t *ToolTask[R]) Task() Task { return t.h.Task() }

// Handle returns the untyped handle the typed one reads through.
func (t *ToolTask[R]) Handle() TaskHandle { return t.h }

// Refresh reads the task's state from the server (tasks/get).
func (t *ToolTask[R]) Refresh(ctx context.Context) (*Task, error) { return t.h.Refresh(ctx) }

// Answer answers the task's input requests by key (tasks/update): each
// answer is the result of the request, as elicitation/create answers it.
func (t *ToolTask[R]) Answer(ctx context.Context, answers map[string]json.RawMessage) error {
	return t.h.Answer(ctx, answers)
}

// Cancel asks the server to cancel the task (tasks/cancel); cancellation
// is cooperative: the task may still end otherwise.
func (t *ToolTask[R]) Cancel(ctx context.Context) error { return t.h.Cancel(ctx) }

// Result follows the task until it ends, answering its input requests
// with the client's handlers, and returns the method's result, or its
// error as the blocking method returns it (the *runtime.Error the tool
// failed with, the client's error for a cancelled or failed task). When
// ctx ends first, the task is cancelled.
func (t *ToolTask[R]) Result(ctx context.Context) (R, error) {
	var zero R
	if t.wrapped {
		var w struct {
			Result R `json:"result"`
		}
		if err := t.h.Decode(ctx, &w); err != nil {
			return zero, typedError(err)
		}
		return w.Result, nil
	}
	if _, none := any(zero).(struct{}); none {
		return zero, typedError(t.h.Decode(ctx, nil))
	}
	var r R
	if err := t.h.Decode(ctx, &r); err != nil {
		return zero, typedError(err)
	}
	return r, nil
}

// Wait is Result without the result: it follows the task until it ends
// and returns its error.
func (t *ToolTask[R]) Wait(ctx context.Context) error {
	_, err := t.Result(ctx)
	return err
}
