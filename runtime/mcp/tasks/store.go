package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"sync"
	"time"

	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
)

// Record is a task as a Store keeps it: its state, and the call it runs.
type Record struct {
	ID            string
	Status        mcp.TaskStatus
	StatusMessage string
	CreatedAt     time.Time
	UpdatedAt     time.Time
	// TTL is how long after CreatedAt the task is kept (and may run); 0 is
	// unlimited.
	TTL          time.Duration
	PollInterval time.Duration
	// Job is the tool call the task runs.
	Job mcpserver.TaskJob
	// InputRequests are the questions the task waits on the client for, by
	// key; Answers the answers the client gave (tasks/update), kept so that
	// a task run again (by another worker) finds them.
	InputRequests map[string]mcp.InputRequest
	Answers       map[string]json.RawMessage
	// Progress and Total are the last progress the task reported.
	Progress, Total float64
	// Result is the CallToolResult of a completed task; Error the JSON-RPC
	// error object of a failed one.
	Result json.RawMessage
	Error  json.RawMessage
	// Runs counts the times a worker began running the task.
	Runs int
}

// Clone returns a copy of r sharing nothing mutable with it.
func (r *Record) Clone() *Record {
	c := *r
	c.InputRequests = maps.Clone(r.InputRequests)
	c.Answers = maps.Clone(r.Answers)
	c.Job.Answers = maps.Clone(r.Job.Answers)
	return &c
}

// Expired reports whether r's time to live is over at now.
func (r *Record) Expired(now time.Time) bool {
	return r.TTL > 0 && now.After(r.CreatedAt.Add(r.TTL))
}

// ErrNotFound is what a Store returns for a task it does not hold (never
// created, or deleted once expired).
var ErrNotFound = errors.New("tasks: task not found")

// ErrFull is what MemoryStore.Create returns when it holds its maximum of
// live tasks.
var ErrFull = errors.New("tasks: the task store is full")

// Store keeps tasks. Every method is safe for concurrent use, and a change
// is visible to every replica sharing the store once the method returned
// (a task created is found by a Get anywhere). An implementation over a
// shared database (ext/redis) keeps a record under its ID, makes Update a
// compare-and-set (a transaction, or a script), and delivers Subscribe's
// signals through the database's notifications.
type Store interface {
	// Create stores a new task; it is durable once Create returns.
	Create(ctx context.Context, r *Record) error
	// Get returns a copy of the task id, or ErrNotFound.
	Get(ctx context.Context, id string) (*Record, error)
	// Update applies fn to the task id atomically: fn gets a copy of the
	// record, changes it and returns nil to store it (or an error, which
	// leaves the record as it was and is returned as it is). It returns
	// the record as stored after, or ErrNotFound.
	Update(ctx context.Context, id string, fn func(*Record) error) (*Record, error)
	// Delete removes the task id; deleting one that is not there is no
	// error.
	Delete(ctx context.Context, id string) error
	// Subscribe returns a channel that receives a value after changes of
	// the task id (several changes may make one value), until stop is
	// called.
	Subscribe(id string) (changes <-chan struct{}, stop func())
}

// MemoryStore is a Store in this process's memory: tasks live as long as
// the process, and only its clients see them. It holds at most Max live
// tasks, deleting those whose time to live is over as it goes.
type MemoryStore struct {
	// Max is the most tasks the store holds; 0 is 10000.
	Max int
	// Now is the clock expiry reads; nil is time.Now.
	Now func() time.Time

	mu        sync.Mutex
	tasks     map[string]*Record
	subs      map[string]map[chan struct{}]struct{}
	lastSweep time.Time
}

var _ Store = (*MemoryStore)(nil)

func (s *MemoryStore) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// Create implements Store.
func (s *MemoryStore) Create(_ context.Context, r *Record) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tasks == nil {
		s.tasks = map[string]*Record{}
	}
	max := s.Max
	if max <= 0 {
		max = 10000
	}
	now := s.now()
	if len(s.tasks) >= max || now.Sub(s.lastSweep) > time.Minute {
		s.sweep(now)
	}
	if len(s.tasks) >= max {
		return ErrFull
	}
	if _, ok := s.tasks[r.ID]; ok {
		return errors.New("tasks: a task with this ID exists")
	}
	s.tasks[r.ID] = r.Clone()
	return nil
}

// sweep deletes the expired tasks; s.mu is held.
func (s *MemoryStore) sweep(now time.Time) {
	s.lastSweep = now
	for id, r := range s.tasks {
		if r.Expired(now) {
			delete(s.tasks, id)
			s.signal(id)
		}
	}
}

// Get implements Store.
func (s *MemoryStore) Get(_ context.Context, id string) (*Record, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.tasks[id]
	if !ok {
		return nil, ErrNotFound
	}
	return r.Clone(), nil
}

// Update implements Store.
func (s *MemoryStore) Update(_ context.Context, id string, fn func(*Record) error) (*Record, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.tasks[id]
	if !ok {
		return nil, ErrNotFound
	}
	c := r.Clone()
	if err := fn(c); err != nil {
		return nil, err
	}
	s.tasks[id] = c
	s.signal(id)
	return c.Clone(), nil
}

// Delete implements Store.
func (s *MemoryStore) Delete(_ context.Context, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.tasks, id)
	s.signal(id)
	return nil
}

// Len returns the number of tasks the store holds.
func (s *MemoryStore) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.tasks)
}

// Subscribe implements Store.
func (s *MemoryStore) Subscribe(id string) (<-chan struct{}, func()) {
	ch := make(chan struct{}, 1)
	s.mu.Lock()
	if s.subs == nil {
		s.subs = map[string]map[chan struct{}]struct{}{}
	}
	if s.subs[id] == nil {
		s.subs[id] = map[chan struct{}]struct{}{}
	}
	s.subs[id][ch] = struct{}{}
	s.mu.Unlock()
	return ch, func() {
		s.mu.Lock()
		delete(s.subs[id], ch)
		if len(s.subs[id]) == 0 {
			delete(s.subs, id)
		}
		s.mu.Unlock()
	}
}

// signal wakes the subscribers of id; s.mu is held.
func (s *MemoryStore) signal(id string) {
	for ch := range s.subs[id] {
		select {
		case ch <- struct{}{}:
		default: // a signal is pending already
		}
	}
}
