package oauth

import (
	"context"
	"sync"
)

// Store keeps what an Authorizer obtains, so that a program can keep it
// across runs (in a keychain, an encrypted file): tokens by the canonical URL
// of the resource they are for, client registrations by the issuer of the
// authorization server they were made with. A Store must be safe for
// concurrent use and keep refresh tokens and secrets confidential.
type Store interface {
	// Token returns the token for resource, or nil when there is none.
	Token(ctx context.Context, resource string) (*Token, error)
	// SetToken keeps t as the token for resource; nil removes it.
	SetToken(ctx context.Context, resource string, t *Token) error
	// Client returns the registration made with issuer, or nil.
	Client(ctx context.Context, issuer string) (*ClientInfo, error)
	// SetClient keeps c as the registration made with issuer.
	SetClient(ctx context.Context, issuer string, c *ClientInfo) error
}

// NewMemoryStore returns a Store that keeps everything in memory.
func NewMemoryStore() Store {
	return &memoryStore{tokens: map[string]Token{}, clients: map[string]ClientInfo{}}
}

type memoryStore struct {
	mu      sync.Mutex
	tokens  map[string]Token
	clients map[string]ClientInfo
}

func (m *memoryStore) Token(_ context.Context, resource string) (*Token, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t, ok := m.tokens[resource]
	if !ok {
		return nil, nil
	}
	return &t, nil
}

func (m *memoryStore) SetToken(_ context.Context, resource string, t *Token) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if t == nil {
		delete(m.tokens, resource)
	} else {
		m.tokens[resource] = *t
	}
	return nil
}

func (m *memoryStore) Client(_ context.Context, issuer string) (*ClientInfo, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	c, ok := m.clients[issuer]
	if !ok {
		return nil, nil
	}
	return &c, nil
}

func (m *memoryStore) SetClient(_ context.Context, issuer string, c *ClientInfo) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.clients[issuer] = *c
	return nil
}
