// Package authnotes is the notes example behind OAuth: an MCP server whose
// tools need scopes (cmd/notes-server, tokens checked by ext/verify), a
// client that logs the user in and calls them (cmd/notes-client, on
// ext/oauth), and a development authorization server to run them against
// (cmd/authserver, on github.com/ory/fosite).
package authnotes

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttp"
)

//go:generate go tool rpcgen Notes

// Notes keeps short notes for the user the access token names.
type Notes interface {
	// AddNote stores a note and returns it with its id.
	//
	//rpcgen:tool scopes=notes.write
	AddNote(ctx context.Context, text string) (Note, error)
	// ListNotes returns the caller's notes, oldest first.
	//
	//rpcgen:tool readonly scopes=notes.read
	ListNotes(ctx context.Context) ([]Note, error)
	// WhoAmI says whom the access token was issued to and what it grants.
	//
	//rpcgen:tool readonly
	WhoAmI(ctx context.Context) (Identity, error)
}

// Note is one note.
type Note struct {
	ID   int    `json:"id"`
	Text string `json:"text"`
}

// Identity is what the server knows of its caller.
type Identity struct {
	Subject string   `json:"subject"`
	Scopes  []string `json:"scopes"`
}

// Store implements Notes in memory, one list per token subject.
type Store struct {
	mu    sync.Mutex
	notes map[string][]Note
}

func subject(ctx context.Context) (string, error) {
	ti := mcphttp.TokenInfoFromContext(ctx)
	if ti == nil || ti.Subject == "" {
		return "", fmt.Errorf("no authenticated user")
	}
	return ti.Subject, nil
}

// AddNote implements Notes.
func (s *Store) AddNote(ctx context.Context, text string) (Note, error) {
	who, err := subject(ctx)
	if err != nil {
		return Note{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.notes == nil {
		s.notes = map[string][]Note{}
	}
	n := Note{ID: len(s.notes[who]) + 1, Text: text}
	s.notes[who] = append(s.notes[who], n)
	return n, nil
}

// ListNotes implements Notes.
func (s *Store) ListNotes(ctx context.Context) ([]Note, error) {
	who, err := subject(ctx)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.notes[who]), nil
}

// WhoAmI implements Notes.
func (s *Store) WhoAmI(ctx context.Context) (Identity, error) {
	ti := mcphttp.TokenInfoFromContext(ctx)
	if ti == nil {
		return Identity{}, fmt.Errorf("no authenticated user")
	}
	return Identity{Subject: ti.Subject, Scopes: ti.Scopes}, nil
}
