package tasks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
)

// wireTask returns r as the extension sends it: detailed (tasks/get) with
// its inputRequests, result or error, else as a CreateTaskResult.
func wireTask(r *Record, detailed bool) *mcp.Task {
	t := &mcp.Task{
		TaskID:         r.ID,
		Status:         r.Status,
		StatusMessage:  r.StatusMessage,
		CreatedAt:      r.CreatedAt.UTC().Format(time.RFC3339Nano),
		LastUpdatedAt:  r.UpdatedAt.UTC().Format(time.RFC3339Nano),
		PollIntervalMs: r.PollInterval.Milliseconds(),
	}
	if r.TTL > 0 {
		ms := r.TTL.Milliseconds()
		t.TTLMs = &ms
	}
	if !detailed {
		return t
	}
	switch r.Status {
	case mcp.TaskInputRequired:
		t.InputRequests = r.InputRequests
	case mcp.TaskCompleted:
		t.Result = r.Result
	case mcp.TaskFailed:
		t.Error = r.Error
	}
	return t
}

// decodeParams decodes a tasks/* request's params (less their _meta) into
// p, refusing unknown members, and checks its taskId.
func decodeParams(params json.RawMessage, p any, id *string) error {
	d := json.NewDecoder(bytes.NewReader(mcp.ParamsWithoutMeta(params)))
	d.DisallowUnknownFields()
	if err := d.Decode(p); err != nil {
		return runtime.InvalidParams("invalid params: %v", err)
	}
	if *id == "" {
		return runtime.InvalidParams(`invalid params: "taskId" must be a non-empty string`)
	}
	return nil
}

func errNotFound(what string) error {
	return runtime.InvalidParams("Failed to %s: Task not found", what)
}

// lookup returns the task id for the request ctx, or the -32602 a client
// gets for a task it may not see: one never created, deleted, expired or
// created on behalf of another principal.
func (m *Manager) lookup(ctx context.Context, id, what string) (*Record, error) {
	r, err := m.store.Get(ctx, id)
	switch {
	case errors.Is(err, ErrNotFound):
		return nil, errNotFound(what)
	case err != nil:
		return nil, err
	case r.Job.Principal != mcpserver.PrincipalFromContext(ctx):
		return nil, errNotFound(what)
	case r.Expired(m.now()):
		_ = m.store.Delete(ctx, id)
		return nil, runtime.InvalidParams("Failed to %s: Task has expired", what)
	}
	return r, nil
}

// handleGet answers tasks/get: the task as it is (a DetailedTask).
func (m *Manager) handleGet(ctx context.Context, params json.RawMessage) (any, error) {
	var p mcp.TaskIDParams
	if err := decodeParams(params, &p, &p.TaskID); err != nil {
		return nil, err
	}
	r, err := m.lookup(ctx, p.TaskID, "retrieve task")
	if err != nil {
		return nil, err
	}
	return wireTask(r, true), nil
}

// handleUpdate answers tasks/update: it takes the answers to the task's
// outstanding input requests, ignoring any other key (answered already,
// never asked), and acknowledges with an empty result. The task is back to
// working once nothing is outstanding.
func (m *Manager) handleUpdate(ctx context.Context, params json.RawMessage) (any, error) {
	var p mcp.UpdateTaskParams
	if err := decodeParams(params, &p, &p.TaskID); err != nil {
		return nil, err
	}
	if p.InputResponses == nil {
		return nil, runtime.InvalidParams(`invalid params: "inputResponses" must be an object`)
	}
	for key, ans := range p.InputResponses {
		if len(ans) == 0 || ans[0] != '{' {
			return nil, runtime.InvalidParams("invalid params: inputResponses[%q] must be an object", key)
		}
	}
	if _, err := m.lookup(ctx, p.TaskID, "update task"); err != nil {
		return nil, err
	}
	_, err := m.store.Update(ctx, p.TaskID, func(r *Record) error {
		if r.Status.Terminal() {
			return errEnded
		}
		taken := false
		for key, ans := range p.InputResponses {
			if _, ok := r.InputRequests[key]; !ok {
				continue
			}
			if r.Answers == nil {
				r.Answers = map[string]json.RawMessage{}
			}
			r.Answers[key] = ans
			delete(r.InputRequests, key)
			taken = true
		}
		if !taken {
			return errEnded // nothing to store
		}
		if len(r.InputRequests) == 0 && r.Status == mcp.TaskInputRequired {
			r.Status = mcp.TaskWorking
		}
		r.UpdatedAt = m.now().UTC()
		return nil
	})
	if err != nil && !errors.Is(err, errEnded) {
		if errors.Is(err, ErrNotFound) {
			return nil, errNotFound("update task")
		}
		return nil, err
	}
	return nil, nil
}

// handleCancel answers tasks/cancel: a task not ended is cancelled at once
// (its tool's context ends, and what it returns is dropped); one that has
// ended stays as it is. Either way the answer is an empty result.
func (m *Manager) handleCancel(ctx context.Context, params json.RawMessage) (any, error) {
	var p mcp.TaskIDParams
	if err := decodeParams(params, &p, &p.TaskID); err != nil {
		return nil, err
	}
	if _, err := m.lookup(ctx, p.TaskID, "cancel task"); err != nil {
		return nil, err
	}
	_, err := m.store.Update(ctx, p.TaskID, func(r *Record) error {
		if r.Status.Terminal() {
			return errEnded
		}
		r.Status = mcp.TaskCancelled
		r.StatusMessage = "cancelled by the client"
		r.InputRequests = nil
		r.UpdatedAt = m.now().UTC()
		return nil
	})
	if err != nil && !errors.Is(err, errEnded) && !errors.Is(err, ErrNotFound) {
		return nil, err
	}
	return nil, nil
}
