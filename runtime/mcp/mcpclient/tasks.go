package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/internal/wire"
)

// The client's side of the Tasks extension (mcp.TasksExtensionID,
// SEP-2663). A client that declares the extension (Options.Extensions) may
// get a task for any tools/call: CallTool and CallToolRaw then follow it
// (polling tasks/get as often as the server asks, answering its input
// requests with the Options' handlers, cancelling it when ctx ends) and
// return its result as if the call had answered it; StartTool returns the
// task's handle instead, for a caller that follows it itself.

// ErrTaskCancelled is what following a task returns when the task ended
// cancelled.
var ErrTaskCancelled = errors.New("mcp: the task was cancelled")

// defaultPollInterval is how often a task is polled when the server does
// not say.
const defaultPollInterval = 500 * time.Millisecond

type noFollowKey struct{}

// declaresTasks reports whether the client declared the Tasks extension.
func (c *Client) declaresTasks() bool {
	for _, e := range c.opts.Extensions {
		if e.ID == mcp.TasksExtensionID {
			return true
		}
	}
	return false
}

// createdTask returns the task a tools/call result creates, or nil when the
// result is not a CreateTaskResult.
func createdTask(result []byte) (*mcp.Task, error) {
	if !wire.StringIs(wire.Member(result, "resultType"), mcp.ResultTypeTask) {
		return nil, nil
	}
	t := new(mcp.Task)
	if err := json.Unmarshal(result, t); err != nil || t.TaskID == "" || !t.Status.Valid() {
		return nil, fmt.Errorf("malformed CreateTaskResult: %s", result)
	}
	return t, nil
}

// TaskHandle is a task the server created for a call: its ID, the state
// last seen, and the requests that read and steer it. Its methods are safe
// to call from one goroutine at a time.
type TaskHandle struct {
	c        *Client
	tool     string
	task     mcp.Task
	answered map[string]bool // the input request keys answered
	atOnce   bool            // no task: the server answered the call at once
}

var _ mcp.TaskHandle = (*TaskHandle)(nil)

// StartToolTask is StartTool for a typed client (mcp.TaskStarter): the
// handle is on the task the server created, or, when it answered the call
// at once, on that result, as a completed task with no ID (Refresh and
// Cancel then change nothing, and Answer fails).
func (c *Client) StartToolTask(ctx context.Context, name string, args any) (mcp.TaskHandle, error) {
	h, raw, err := c.StartTool(ctx, name, args)
	if err != nil {
		return nil, err
	}
	if h == nil {
		h = &TaskHandle{c: c, tool: name, atOnce: true, task: mcp.Task{Status: mcp.TaskCompleted, Result: raw}}
	}
	return h, nil
}

// ID returns the task's ID. A client may keep it, to follow the task
// again later (Client.Task) from a new connection.
func (h *TaskHandle) ID() string { return h.task.TaskID }

// Task returns the task as last seen (the CreateTaskResult, then each
// tasks/get): its status, statusMessage (progress), input requests.
func (h *TaskHandle) Task() mcp.Task { return h.task }

// Task returns a handle to the task id, created earlier (on another
// connection, say) for a call of the tool named tool, as tasks/get now
// answers it.
func (c *Client) Task(ctx context.Context, tool, id string) (*TaskHandle, error) {
	h := &TaskHandle{c: c, tool: tool, task: mcp.Task{TaskID: id}}
	if _, err := h.Refresh(ctx); err != nil {
		return nil, err
	}
	return h, nil
}

// Refresh asks the server for the task's state (tasks/get) and returns it.
func (h *TaskHandle) Refresh(ctx context.Context) (*mcp.Task, error) {
	if h.atOnce {
		t := h.task
		return &t, nil
	}
	var t mcp.Task
	if err := h.c.CallExtension(ctx, mcp.MethodTasksGet, mcp.TaskIDParams{TaskID: h.task.TaskID}, &t); err != nil {
		return nil, err
	}
	if t.TaskID != h.task.TaskID || !t.Status.Valid() {
		return nil, fmt.Errorf("mcp: tasks/get %s: malformed task (id %q, status %q)", h.task.TaskID, t.TaskID, t.Status)
	}
	h.task = t
	return &t, nil
}

// Answer sends the answers to the task's input requests, by key
// (tasks/update). Each answer is the result of the request, as
// elicitation/create, sampling/createMessage or roots/list answer.
func (h *TaskHandle) Answer(ctx context.Context, answers map[string]json.RawMessage) error {
	if h.atOnce {
		return fmt.Errorf("mcp: tools/call %s was answered at once: no task to answer", h.tool)
	}
	if err := h.c.CallExtension(ctx, mcp.MethodTasksUpdate, mcp.UpdateTaskParams{TaskID: h.task.TaskID, InputResponses: answers}, nil); err != nil {
		return err
	}
	if h.answered == nil {
		h.answered = map[string]bool{}
	}
	for k := range answers {
		h.answered[k] = true
	}
	return nil
}

// Cancel asks the server to cancel the task (tasks/cancel), then reads
// its state (tasks/get), so that Task and Result see the cancellation.
// Cancellation is cooperative: the task may still end otherwise.
func (h *TaskHandle) Cancel(ctx context.Context) error {
	if h.atOnce {
		return nil
	}
	if err := h.c.CallExtension(ctx, mcp.MethodTasksCancel, mcp.TaskIDParams{TaskID: h.task.TaskID}, nil); err != nil {
		return err
	}
	_, _ = h.Refresh(ctx) // the ack is what counts; a stale state is refreshed by Result
	return nil
}

// Result follows the task until it ends and returns its result, the
// tools/call result as raw JSON. In 2026-07-28 it listens for the task's
// status notifications (subscriptions/listen naming the task) when the
// server agrees to send them; otherwise, or once that stream is lost, it
// polls tasks/get as often as the server asks (pollIntervalMs). It answers
// each input request once with the client's handlers (Options.OnElicit
// and the others), and, when ctx ends first, cancels the task and returns
// ctx's error. A failed task's error is the *runtime.Error it failed
// with; a cancelled one's is ErrTaskCancelled.
func (h *TaskHandle) Result(ctx context.Context) (json.RawMessage, error) {
	var w *taskWatch
	defer func() {
		if w != nil {
			w.close()
		}
	}()
	watched := false
	for {
		t := &h.task
		switch t.Status {
		case mcp.TaskCompleted:
			if len(t.Result) == 0 {
				return nil, fmt.Errorf("mcp: task %s completed without a result", t.TaskID)
			}
			return t.Result, nil
		case mcp.TaskFailed:
			e := new(runtime.Error)
			if len(t.Error) == 0 || json.Unmarshal(t.Error, e) != nil {
				e = &runtime.Error{Code: runtime.CodeInternalError, Message: "task failed: " + t.StatusMessage}
			}
			return nil, e
		case mcp.TaskCancelled:
			return nil, ErrTaskCancelled
		case mcp.TaskInputRequired:
			if err := h.answerAll(ctx); err != nil {
				h.cancelQuietly(ctx)
				return nil, fmt.Errorf("mcp: task %s of %s: %w", t.TaskID, h.tool, err)
			}
		}
		if ctx.Err() != nil {
			return nil, h.gaveUp(ctx)
		}
		if !watched {
			watched = true
			if w = h.c.watchTask(ctx, t.TaskID); w != nil {
				// What changed before the server agreed is not sent.
				if _, err := h.Refresh(ctx); err != nil {
					return nil, h.refreshFailed(ctx, err)
				}
				continue
			}
		}
		if w != nil {
			select {
			case <-ctx.Done():
				h.cancelQuietly(ctx)
				return nil, ctx.Err()
			case nt := <-w.updates:
				h.task = nt
				continue
			case err := <-w.ended:
				h.c.logger.Debug("mcp: the task's status stream ended; polling", "task", t.TaskID, "err", err)
				w.close()
				w = nil
				if _, err := h.Refresh(ctx); err != nil {
					return nil, h.refreshFailed(ctx, err)
				}
				continue
			}
		}
		wait := time.Duration(t.PollIntervalMs) * time.Millisecond
		if wait <= 0 {
			wait = defaultPollInterval
		}
		timer := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			timer.Stop()
			h.cancelQuietly(ctx)
			return nil, ctx.Err()
		case <-timer.C:
		}
		if _, err := h.Refresh(ctx); err != nil {
			return nil, h.refreshFailed(ctx, err)
		}
	}
}

// gaveUp cancels the task, as the caller gave up on it (ctx ended), and
// returns ctx's error.
func (h *TaskHandle) gaveUp(ctx context.Context) error {
	h.cancelQuietly(ctx)
	return ctx.Err()
}

// refreshFailed is what Result returns when a tasks/get failed with err:
// when ctx ended meanwhile, the task is cancelled and ctx's error returned.
func (h *TaskHandle) refreshFailed(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return h.gaveUp(ctx)
	}
	return err
}

// answerAll answers the input requests not answered yet.
func (h *TaskHandle) answerAll(ctx context.Context) error {
	answers := map[string]json.RawMessage{}
	for _, key := range slices.Sorted(maps.Keys(h.task.InputRequests)) {
		if h.answered[key] {
			continue
		}
		req := h.task.InputRequests[key]
		res, err := h.c.answerInput(ctx, req.Method, req.Params)
		if err != nil {
			return fmt.Errorf("input request %q (%s): %w", key, req.Method, err)
		}
		answers[key] = res
	}
	if len(answers) == 0 {
		return nil
	}
	return h.Answer(ctx, answers)
}

// cancelQuietly cancels the task, on a context of its own when ctx ended:
// the caller gave up on it.
func (h *TaskHandle) cancelQuietly(ctx context.Context) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	_ = h.Cancel(ctx)
}

// Decode follows the task (Result) and decodes its result into result as
// CallTool does: the structured result, a *ToolError for a tool's error.
func (h *TaskHandle) Decode(ctx context.Context, result any) error {
	raw, err := h.Result(ctx)
	if err != nil {
		return err
	}
	return h.c.decodeToolResult(h.tool, raw, result)
}

// StartTool calls the tool name with args, as CallTool does, but does not
// follow a task the server creates for the call: it returns its handle.
// When the server answers the call at once, the handle is nil and the
// result raw JSON. The client must declare the Tasks extension
// (Options.Extensions) for the server to create tasks.
func (c *Client) StartTool(ctx context.Context, name string, args any) (*TaskHandle, json.RawMessage, error) {
	raw, err := c.callTool(context.WithValue(ctx, noFollowKey{}, true), name, args, nil)
	if err != nil {
		return nil, nil, err
	}
	t, err := createdTask(raw)
	if err != nil {
		return nil, nil, fmt.Errorf("mcp: tools/call %s: %w", name, err)
	}
	if t == nil {
		return nil, raw, nil
	}
	return &TaskHandle{c: c, tool: name, task: *t}, nil, nil
}

// followTask follows the task a tools/call of name created and returns its
// result; when ctx says not to (StartTool), it returns the
// CreateTaskResult as it is. It reports false when result is not a task
// (or the client did not declare the extension: then a task is an error
// of the caller's).
func (c *Client) followTask(ctx context.Context, name string, result []byte) ([]byte, bool, error) {
	if !c.declaresTasks() {
		return nil, false, nil
	}
	t, err := createdTask(result)
	if err != nil {
		return nil, true, fmt.Errorf("mcp: tools/call %s: %w", name, err)
	}
	if t == nil {
		return nil, false, nil
	}
	if ctx.Value(noFollowKey{}) != nil {
		return result, true, nil
	}
	h := &TaskHandle{c: c, tool: name, task: *t}
	raw, err := h.Result(ctx)
	return raw, true, err
}
