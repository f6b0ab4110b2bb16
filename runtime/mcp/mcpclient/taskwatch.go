package mcpclient

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/internal/wire"
)

// In 2026-07-28 a client following a task need not poll: it opens a
// subscriptions/listen stream naming the task ("taskIds"), and the server,
// once it agreed in its acknowledgement, sends the task's state
// (notifications/tasks, what tasks/get would answer) as it changes. A
// server that does not agree, a legacy session, or a stream lost on the
// way leave the client polling as the server asks (pollIntervalMs).

// taskWatch is a subscriptions/listen stream following one task's status.
type taskWatch struct {
	c       *Client
	sid     int64 // the listen request's id
	task    string
	updates chan mcp.Task // the latest state not read yet
	ended   <-chan error  // why the stream ended
	stop    context.CancelFunc
}

// watchTask opens a stream for the status notifications of the task id
// and returns it once the server agreed to send them; nil when the session
// is legacy, the client did not declare the extension, or the server
// refused or did not agree (the caller polls then).
func (c *Client) watchTask(ctx context.Context, id string) *taskWatch {
	if !c.Modern() || !c.declaresTasks() {
		return nil
	}
	fb, err := json.Marshal(struct {
		TaskIDs []string `json:"taskIds"`
	}{[]string{id}})
	if err != nil {
		return nil
	}
	lctx, stop := context.WithCancel(c.serving.base)
	w := &taskWatch{c: c, sid: c.nextID.Add(1), task: id, updates: make(chan mcp.Task, 1), stop: stop}
	l := &c.listen
	l.mu.Lock()
	if l.tasks == nil {
		l.tasks = make(map[int64]*taskWatch)
	}
	l.tasks[w.sid] = w
	l.mu.Unlock()
	acked, ended := c.startListenID(lctx, w.sid, fb)
	select {
	case ack := <-acked:
		var p struct {
			Notifications struct {
				TaskIDs []string `json:"taskIds"`
			} `json:"notifications"`
		}
		if json.Unmarshal(ack, &p) != nil || !slices.Contains(p.Notifications.TaskIDs, id) {
			c.logger.Debug("mcp: the server does not send this task's status; polling", "task", id)
			w.close()
			return nil
		}
		w.ended = ended
		return w
	case err := <-ended:
		c.logger.Debug("mcp: no status notifications for the task; polling", "task", id, "err", err)
	case <-ctx.Done():
	}
	w.close()
	return nil
}

// close ends the stream.
func (w *taskWatch) close() {
	w.stop()
	l := &w.c.listen
	l.mu.Lock()
	delete(l.tasks, w.sid)
	l.mu.Unlock()
}

// deliver keeps t as the latest state not read yet, dropping an older one:
// each notification carries the whole state.
func (w *taskWatch) deliver(t mcp.Task) {
	for {
		select {
		case w.updates <- t:
			return
		default:
		}
		select {
		case <-w.updates:
		default:
		}
	}
}

// taskNotification handles notifications/tasks: the state goes to the
// stream it came on, if it follows that task.
func (c *Client) taskNotification(params []byte) {
	var p struct {
		Meta struct {
			ID json.RawMessage `json:"io.modelcontextprotocol/subscriptionId"`
		} `json:"_meta"`
	}
	var t mcp.Task
	if json.Unmarshal(params, &p) != nil || json.Unmarshal(params, &t) != nil || !t.Status.Valid() {
		c.logger.Debug("mcp: dropped a malformed notifications/tasks")
		return
	}
	sid, ok := wire.ParseID(p.Meta.ID)
	if !ok {
		return
	}
	l := &c.listen
	l.mu.Lock()
	w := l.tasks[sid]
	l.mu.Unlock()
	if w == nil || w.task != t.TaskID {
		c.logger.Debug("mcp: dropped a notifications/tasks of no stream following it", "task", t.TaskID)
		return
	}
	w.deliver(t)
}
