package mcphttp

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
)

// MemorySessionStore is a SessionStore in memory: the handlers of one
// process that share it (with a shared MemoryEventStore and an
// mcpserver.MemoryBus) behave as replicas of one server, which is what a test of
// a multi-replica setup needs. A Handler without a SessionStore keeps its
// sessions in memory more cheaply; this one is for sharing.
type MemorySessionStore struct {
	now func() time.Time

	mu       sync.Mutex
	sessions map[string]*memStored
	claims   map[string]time.Time
}

type memStored struct {
	s       StoredSession
	expires time.Time
}

// NewMemorySessionStore returns an empty MemorySessionStore.
func NewMemorySessionStore() *MemorySessionStore {
	return &MemorySessionStore{now: time.Now, sessions: make(map[string]*memStored), claims: make(map[string]time.Time)}
}

// live returns the session id unless it has expired; m.mu held.
func (m *MemorySessionStore) live(id string, now time.Time) *memStored {
	e := m.sessions[id]
	if e == nil {
		return nil
	}
	if !now.Before(e.expires) {
		delete(m.sessions, id)
		return nil
	}
	return e
}

// Create records s unless max sessions are live.
func (m *MemorySessionStore) Create(_ context.Context, s *StoredSession, max int, ttl time.Duration) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	for id, e := range m.sessions {
		if !now.Before(e.expires) {
			delete(m.sessions, id)
		}
	}
	if len(m.sessions) >= max {
		return ErrTooManySessions
	}
	c := *s
	c.State = cloneState(s.State)
	m.sessions[s.ID] = &memStored{s: c, expires: now.Add(ttl)}
	return nil
}

func cloneState(st mcpserver.SessionState) mcpserver.SessionState {
	st.Capabilities = slices.Clone(st.Capabilities)
	st.Features = slices.Clone(st.Features)
	st.Subscriptions = slices.Clone(st.Subscriptions)
	return st
}

// Get returns the session and keeps it alive.
func (m *MemorySessionStore) Get(_ context.Context, id string, ttl time.Duration) (*StoredSession, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	e := m.live(id, now)
	if e == nil {
		return nil, ErrSessionNotFound
	}
	e.expires = now.Add(ttl)
	c := e.s
	c.State = cloneState(e.s.State)
	return &c, nil
}

// Touch keeps the session alive and returns its log level.
func (m *MemorySessionStore) Touch(_ context.Context, id string, ttl time.Duration) (mcp.LogLevel, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	e := m.live(id, now)
	if e == nil {
		return "", ErrSessionNotFound
	}
	e.expires = now.Add(ttl)
	return e.s.State.LogLevel, nil
}

// Update changes the session.
func (m *MemorySessionStore) Update(_ context.Context, id string, u SessionUpdate) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	e := m.live(id, m.now())
	if e == nil {
		return ErrSessionNotFound
	}
	st := &e.s.State
	if u.LogLevel != "" {
		st.LogLevel = u.LogLevel
	}
	if u.Subscribe != "" && !slices.Contains(st.Subscriptions, u.Subscribe) {
		st.Subscriptions = append(st.Subscriptions, u.Subscribe)
	}
	if u.Unsubscribe != "" {
		st.Subscriptions = slices.DeleteFunc(st.Subscriptions, func(s string) bool { return s == u.Unsubscribe })
	}
	if u.Standalone != "" {
		e.s.Standalone = u.Standalone
	}
	return nil
}

// Delete ends the session.
func (m *MemorySessionStore) Delete(_ context.Context, id string) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e := m.live(id, m.now())
	delete(m.sessions, id)
	return e != nil, nil
}

// Match calls f for the live sessions in a.
func (m *MemorySessionStore) Match(_ context.Context, a Audience, f func(id string) bool) error {
	m.mu.Lock()
	now := m.now()
	var ids []string
	for id, e := range m.sessions {
		if now.Before(e.expires) && a.Matches(&e.s.State) {
			ids = append(ids, id)
		}
	}
	m.mu.Unlock()
	for _, id := range ids {
		if !f(id) {
			break
		}
	}
	return nil
}

// Claim records key and reports whether it was the first.
func (m *MemorySessionStore) Claim(_ context.Context, id, key string, ttl time.Duration) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	for k, exp := range m.claims {
		if !now.Before(exp) {
			delete(m.claims, k)
		}
	}
	k := id + "\x00" + key
	if _, taken := m.claims[k]; taken {
		return false, nil
	}
	m.claims[k] = now.Add(ttl)
	return true, nil
}
