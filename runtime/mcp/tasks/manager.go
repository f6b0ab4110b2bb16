package tasks

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
)

// Executor has tasks run. Submit must see that the task taskID is run,
// eventually and at least once, by Manager.Run in some process whose
// server has the task's tool; it returns once the task is queued (or
// started). An executor over a shared queue (ext/redis) pushes the ID, and
// its workers claim IDs with a lease and call Run; one whose worker died
// gives the ID to another when the tool is idempotent, and fails the task
// (Manager.Fail) otherwise.
type Executor interface {
	Submit(ctx context.Context, taskID string) error
}

// ExecutorFunc is an Executor that is a function.
type ExecutorFunc func(ctx context.Context, taskID string) error

// Submit calls f.
func (f ExecutorFunc) Submit(ctx context.Context, taskID string) error { return f(ctx, taskID) }

// Options configure Enable. The zero value keeps tasks in memory for an
// hour and runs each in a goroutine of this process.
type Options struct {
	// Store keeps the tasks; nil is a new MemoryStore.
	Store Store
	// Executor runs them; nil runs each in a goroutine of this process
	// (Manager.Close waits for them).
	Executor Executor
	// TTL is how long a task is kept after its creation, and the longest it
	// may run: a task still running then fails. 0 is one hour; a negative
	// TTL keeps tasks for ever (ttlMs null), which only a store that
	// deletes them on its own should do.
	TTL time.Duration
	// PollInterval is how often a client should poll a task; 0 is 500 ms.
	PollInterval time.Duration
	// Now is the clock; nil is time.Now.
	Now func() time.Time
	// Logger gets the diagnostics; nil is slog.Default().
	Logger *slog.Logger
}

// Manager serves the Tasks extension of one server: it creates tasks,
// runs them and answers tasks/get, tasks/update and tasks/cancel.
type Manager struct {
	srv    *mcpserver.Server
	store  Store
	exec   Executor
	opts   Options
	logger *slog.Logger

	ctx    context.Context // the goroutine executor's runs; ended by Close
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// Enable adds the Tasks extension to srv and returns its Manager: the
// server declares the extension, serves tasks/get, tasks/update and
// tasks/cancel to clients that declared it, sends their status
// notifications on the subscriptions/listen streams that name them
// ("taskIds", 2026-07-28), and runs its task tools as tasks. opts may be
// nil. Call it once, before serving.
func Enable(srv *mcpserver.Server, opts *Options) *Manager {
	m := &Manager{srv: srv}
	if opts != nil {
		m.opts = *opts
	}
	if m.store = m.opts.Store; m.store == nil {
		m.store = &MemoryStore{Now: m.opts.Now}
	}
	if m.opts.TTL == 0 {
		m.opts.TTL = time.Hour
	}
	if m.opts.PollInterval <= 0 {
		m.opts.PollInterval = 500 * time.Millisecond
	}
	if m.logger = m.opts.Logger; m.logger == nil {
		m.logger = slog.Default()
	}
	m.ctx, m.cancel = context.WithCancel(context.Background())
	if m.exec = m.opts.Executor; m.exec == nil {
		m.exec = ExecutorFunc(m.goroutine)
	}
	srv.AddExtension(mcpserver.ServerExtension{
		ID: mcp.TasksExtensionID,
		Methods: map[string]mcpserver.ExtensionHandler{
			mcp.MethodTasksGet:    m.handleGet,
			mcp.MethodTasksUpdate: m.handleUpdate,
			mcp.MethodTasksCancel: m.handleCancel,
		},
	})
	srv.AddListenSource(m.listenSource())
	srv.SetTaskStarter(m)
	return m
}

// Store returns the manager's store.
func (m *Manager) Store() Store { return m.store }

// Close cancels the tasks running in this process's goroutines and waits
// for them to end; they end failed ("the server is shutting down"), unless
// they ended otherwise first.
func (m *Manager) Close() {
	m.cancel()
	m.wg.Wait()
}

// goroutine is the default executor: the task runs in a goroutine here.
func (m *Manager) goroutine(_ context.Context, id string) error {
	if m.ctx.Err() != nil {
		return errors.New("tasks: the manager is closed")
	}
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		if err := m.Run(m.ctx, id); err != nil {
			m.logger.Error("mcp tasks: run", "task", id, "err", err)
		}
	}()
	return nil
}

func (m *Manager) now() time.Time {
	if m.opts.Now != nil {
		return m.opts.Now()
	}
	return time.Now()
}

// newID returns a task ID of 128 random bits: unguessable, as the
// extension requires of IDs that act as bearer tokens.
func newID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// StartTask implements mcpserver.TaskStarter: it stores a working task for
// job, durably, submits it to the executor and returns its CreateTaskResult
// fields.
func (m *Manager) StartTask(ctx context.Context, job *mcpserver.TaskJob) (json.RawMessage, error) {
	now := m.now().UTC()
	r := &Record{
		ID:           newID(),
		Status:       mcp.TaskWorking,
		CreatedAt:    now,
		UpdatedAt:    now,
		PollInterval: m.opts.PollInterval,
		Job:          *job,
	}
	if m.opts.TTL > 0 {
		r.TTL = m.opts.TTL
	}
	if err := m.store.Create(ctx, r); err != nil {
		return nil, err
	}
	if err := m.exec.Submit(ctx, r.ID); err != nil {
		m.Fail(ctx, r.ID, "the task could not be queued: "+err.Error())
		return nil, fmt.Errorf("queue the task: %w", err)
	}
	return json.Marshal(wireTask(r, false))
}

// Fail ends the task id as failed with an internal error (-32603) saying
// why, unless it has ended already. An executor calls it for a task it
// cannot run (its worker died, and its tool is not idempotent).
func (m *Manager) Fail(ctx context.Context, id, why string) {
	_, err := m.store.Update(ctx, id, func(r *Record) error {
		if r.Status.Terminal() {
			return errEnded
		}
		m.end(r, nil, &runtime.Error{Code: runtime.CodeInternalError, Message: why})
		return nil
	})
	if err != nil && !errors.Is(err, errEnded) && !errors.Is(err, ErrNotFound) {
		m.logger.Error("mcp tasks: fail", "task", id, "err", err)
	}
}

var errEnded = errors.New("tasks: the task has ended")

// end makes r terminal with the result res, or the error e.
func (m *Manager) end(r *Record, res json.RawMessage, e *runtime.Error) {
	r.UpdatedAt = m.now().UTC()
	r.InputRequests = nil
	if e != nil {
		r.Status = mcp.TaskFailed
		r.StatusMessage = e.Message
		r.Error, _ = json.Marshal(e)
		return
	}
	r.Status = mcp.TaskCompleted
	r.Result = res
}

// Run runs the task id (an Executor's worker calls it): it runs the task's
// tool through the server and stores how it ended. The tool's context ends
// when ctx does, when the task is cancelled (tasks/cancel) and when its
// time to live is over. A task that has ended already is not run again.
// It returns an error only when the store fails.
func (m *Manager) Run(ctx context.Context, id string) error {
	// Subscribed before the claim, so that no cancellation after it goes
	// unseen.
	changes, unsubscribe := m.store.Subscribe(id)
	defer unsubscribe()
	r, err := m.store.Update(ctx, id, func(r *Record) error {
		if r.Status.Terminal() {
			return errEnded
		}
		r.Runs++
		return nil
	})
	switch {
	case errors.Is(err, errEnded) || errors.Is(err, ErrNotFound):
		return nil
	case err != nil:
		return err
	}
	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	if r.TTL > 0 {
		var stop context.CancelFunc
		runCtx, stop = context.WithDeadlineCause(runCtx, r.CreatedAt.Add(r.TTL), errors.New("the task's time to live is over"))
		defer stop()
	}
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		m.watch(runCtx, id, changes, cancel)
	}()
	res, rerr := m.srv.RunTask(runCtx, &r.Job, &taskIO{m: m, id: id})
	if rerr != nil && ctx.Err() != nil && context.Cause(runCtx) == ctx.Err() {
		rerr = &runtime.Error{Code: runtime.CodeInternalError, Message: "the server is shutting down"}
	}
	cancel(nil)
	<-watched
	_, err = m.store.Update(context.WithoutCancel(ctx), id, func(r *Record) error {
		if r.Status.Terminal() {
			return errEnded // cancelled meanwhile: its result is dropped
		}
		m.end(r, res, rerr)
		return nil
	})
	if err != nil && !errors.Is(err, errEnded) && !errors.Is(err, ErrNotFound) {
		return err
	}
	return nil
}

var errCancelled = errors.New("the task was cancelled")

// watch cancels a running task's context when the task is cancelled or
// deleted, until ctx ends.
func (m *Manager) watch(ctx context.Context, id string, changes <-chan struct{}, cancel context.CancelCauseFunc) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-changes:
		}
		r, err := m.store.Get(ctx, id)
		if errors.Is(err, ErrNotFound) || err == nil && r.Status == mcp.TaskCancelled {
			cancel(errCancelled)
			return
		}
	}
}

// taskIO is a running task's mcpserver.TaskIO.
type taskIO struct {
	m  *Manager
	id string
}

// Input implements mcpserver.TaskIO: it adds the question to the task's
// inputRequests (status input_required) and waits for its answer.
func (t *taskIO) Input(ctx context.Context, key, method string, params json.RawMessage) (json.RawMessage, error) {
	changes, unsubscribe := t.m.store.Subscribe(t.id)
	defer unsubscribe()
	var answer json.RawMessage
	_, err := t.m.store.Update(ctx, t.id, func(r *Record) error {
		if ans, ok := r.Answers[key]; ok {
			answer = ans
			return errAnswered
		}
		if r.Status.Terminal() {
			return errEnded
		}
		if r.InputRequests == nil {
			r.InputRequests = map[string]mcp.InputRequest{}
		}
		r.InputRequests[key] = mcp.InputRequest{Method: method, Params: params}
		r.Status = mcp.TaskInputRequired
		r.UpdatedAt = t.m.now().UTC()
		return nil
	})
	switch {
	case errors.Is(err, errAnswered):
		return answer, nil
	case err != nil:
		return nil, err
	}
	for {
		select {
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		case <-changes:
		}
		r, err := t.m.store.Get(ctx, t.id)
		if err != nil {
			return nil, err
		}
		if ans, ok := r.Answers[key]; ok {
			return ans, nil
		}
		if r.Status.Terminal() {
			return nil, errEnded
		}
	}
}

var errAnswered = errors.New("tasks: answered")

// Progress implements mcpserver.TaskIO: the task's statusMessage says it.
func (t *taskIO) Progress(progress, total float64, message string) {
	_, err := t.m.store.Update(context.Background(), t.id, func(r *Record) error {
		if r.Status.Terminal() {
			return errEnded
		}
		r.Progress, r.Total = progress, total
		if message == "" {
			message = strconv.FormatFloat(progress, 'f', -1, 64)
			if total > 0 {
				message += " of " + strconv.FormatFloat(total, 'f', -1, 64)
			}
		}
		r.StatusMessage = message
		r.UpdatedAt = t.m.now().UTC()
		return nil
	})
	if err != nil && !errors.Is(err, errEnded) && !errors.Is(err, ErrNotFound) {
		t.m.logger.Error("mcp tasks: progress", "task", t.id, "err", err)
	}
}
