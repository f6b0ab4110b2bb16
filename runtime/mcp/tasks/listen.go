package tasks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
)

// maxListenTasks bounds the task IDs one subscriptions/listen may name.
const maxListenTasks = 256

// listenKey is the member of a subscriptions/listen filter naming the tasks
// whose status notifications the client wants.
const listenKey = "taskIds"

// listen serves the "taskIds" of a subscriptions/listen (2026-07-28): the
// server agrees to the tasks the client may see (its own, known, not
// expired) and sends, for each, its state as tasks/get would answer it
// (notifications/tasks, a DetailedTask) at once and then at every change,
// until the task ends (its terminal state is the last) or the stream does.
func (m *Manager) listen(ctx context.Context, value json.RawMessage, send func(string, json.RawMessage)) (json.RawMessage, error) {
	var ids []string
	if err := json.Unmarshal(value, &ids); err != nil {
		return nil, runtime.InvalidParams(`invalid params: "notifications.taskIds" must be an array of strings`)
	}
	if len(ids) > maxListenTasks {
		return nil, runtime.InvalidParams(`invalid params: "notifications.taskIds" names %d tasks, more than %d`, len(ids), maxListenTasks)
	}
	agreed := []string{}
	seen := map[string]bool{}
	for _, id := range ids {
		if seen[id] || id == "" {
			continue
		}
		seen[id] = true
		// Subscribed before the first read, so that no change after it
		// goes unsent.
		changes, unsubscribe := m.store.Subscribe(id)
		if _, err := m.lookup(ctx, id, "listen"); err != nil {
			unsubscribe()
			var re *runtime.Error
			if errors.As(err, &re) {
				continue // not the client's to hear: not agreed
			}
			return nil, err
		}
		agreed = append(agreed, id)
		go func() {
			defer unsubscribe()
			m.follow(ctx, id, changes, send)
		}()
	}
	return json.Marshal(agreed)
}

// follow sends the task id's state now and at each change it signals,
// until the task ended or is gone, or ctx ends. A change that leaves what
// tasks/get answers as it was (a run claimed, say) sends nothing.
func (m *Manager) follow(ctx context.Context, id string, changes <-chan struct{}, send func(string, json.RawMessage)) {
	var last []byte
	for {
		r, err := m.store.Get(ctx, id)
		if err != nil {
			if !errors.Is(err, ErrNotFound) && ctx.Err() == nil {
				m.logger.Error("mcp tasks: status notification", "task", id, "err", err)
			}
			return
		}
		b, err := json.Marshal(wireTask(r, true))
		if err != nil {
			return
		}
		if !bytes.Equal(b, last) {
			send(mcp.NotificationTasks, b)
			last = b
		}
		if r.Status.Terminal() {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-changes:
		}
	}
}

// listenSource is the manager's mcpserver.ListenSource.
func (m *Manager) listenSource() mcpserver.ListenSource {
	return mcpserver.ListenSource{Key: listenKey, Extension: mcp.TasksExtensionID, Listen: m.listen}
}
