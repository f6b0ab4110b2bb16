package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/rpcgen/rpcgen/runtime/mcp"
)

//go:generate go tool rpcgen Notes

// Notes keeps short text notes where every replica finds them.
//
//rpcgen:service name=notes
type Notes interface {
	// AddNote stores a note and returns it with its id; every session with
	// a log level that lets info through hears of it.
	//
	// text: the note.
	//
	//rpcgen:tool idempotent=false openworld=false
	AddNote(ctx context.Context, text string) (Note, error)

	// GetNote returns the note with the given id.
	//
	// id: the note's id, as AddNote returned it.
	//
	//rpcgen:tool readonly openworld=false
	GetNote(ctx context.Context, id string) (Note, error)

	// ListNotes returns every note, oldest first.
	//
	//rpcgen:tool readonly openworld=false
	ListNotes(ctx context.Context) ([]Note, error)
}

// Note is one note.
type Note struct {
	ID   string `json:"id"`
	Text string `json:"text"`
	// Replica names the replica that stored it.
	Replica string `json:"replica"`
}

// errNotFound is GetNote's error for an unknown id.
var errNotFound = errors.New("no such note")

// store keeps the notes: in memory for one process, on Redis for
// replicas (store.go).
type store interface {
	add(ctx context.Context, n Note) (Note, error)
	get(ctx context.Context, id string) (Note, error)
	list(ctx context.Context) ([]Note, error)
}

// notes is the service: a store, the replica's name, and the server whose
// sessions hear of new notes.
type notes struct {
	st      store
	replica string
	srv     *mcp.Server
}

func (n *notes) AddNote(ctx context.Context, text string) (Note, error) {
	if text == "" {
		return Note{}, errors.New("a note needs text")
	}
	note, err := n.st.add(ctx, Note{Text: text, Replica: n.replica})
	if err != nil {
		return Note{}, err
	}
	// A log message for every session, on every replica: the replica
	// holding a session's GET stream writes it there.
	n.srv.Log(mcp.LevelInfo, "notes", map[string]string{"added": note.ID, "by": n.replica})
	return note, nil
}

func (n *notes) GetNote(ctx context.Context, id string) (Note, error) {
	note, err := n.st.get(ctx, id)
	if err != nil {
		return Note{}, fmt.Errorf("note %q: %w", id, err)
	}
	return note, nil
}

func (n *notes) ListNotes(ctx context.Context) ([]Note, error) { return n.st.list(ctx) }
