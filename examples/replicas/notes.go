package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/ask"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
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

	// DeleteNote deletes the note with the given id once the user has
	// confirmed it, and returns it. It asks the client (elicitation) and
	// reports its progress: in 2026-07-28 the call ends with
	// input_required and the client's retry, which may land on another
	// replica, carries the answer with a requestState that every replica
	// must open (--state-keys).
	//
	// id: the note's id.
	//
	//rpcgen:tool destructive idempotent openworld=false
	DeleteNote(ctx context.Context, id string) (Note, error)
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

// errNotConfirmed is DeleteNote's error when the user does not confirm.
var errNotConfirmed = errors.New("the deletion was not confirmed")

// store keeps the notes: in memory for one process, on Redis for
// replicas (store.go).
type store interface {
	add(ctx context.Context, n Note) (Note, error)
	get(ctx context.Context, id string) (Note, error)
	list(ctx context.Context) ([]Note, error)
	del(ctx context.Context, id string) error
}

// notes is the service: a store, the replica's name, and the server whose
// sessions hear of new notes.
type notes struct {
	st      store
	replica string
	srv     *mcpserver.Server
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

func (n *notes) DeleteNote(ctx context.Context, id string) (Note, error) {
	note, err := n.st.get(ctx, id)
	if err != nil {
		return Note{}, fmt.Errorf("note %q: %w", id, err)
	}
	mcpserver.Progress(ctx, 1, 3, "found the note")
	answer, err := ask.Elicit(ctx, &mcp.ElicitParams{Message: fmt.Sprintf("Delete note %s (%q)?", id, note.Text)})
	if err != nil {
		return Note{}, err // ErrInputRequired in 2026-07-28: the retry brings the answer
	}
	mcpserver.Progress(ctx, 2, 3, "asked the user")
	if answer.Action != "accept" {
		return Note{}, errNotConfirmed
	}
	if err := n.st.del(ctx, id); err != nil {
		return Note{}, fmt.Errorf("delete note %q: %w", id, err)
	}
	mcpserver.Progress(ctx, 3, 3, "deleted")
	return note, nil
}
