package main

import (
	"context"
	"time"
)

//go:generate go tool rpcgen --openrpc notes.openrpc.json --ts notes_client.ts --docs notes_api.md --api-version 1.0.0 Notes Tags

// Notes keeps short text notes, each with tags and a priority. It is an
// ordinary Go service; rpcgen turns it into MCP tools and a JSON-RPC API.
//
//rpcgen:service name=notes
//rpcgen:icon file=icons/note.svg sizes=any
//rpcgen:skills dir=skills
type Notes interface {
	// AddNote stores a new note and returns it with its id and creation time.
	//
	//rpcgen:tool idempotent=false openworld=false
	AddNote(ctx context.Context, note NewNote) (Note, error)

	// SearchNotes returns the notes whose text contains query, newest first.
	//
	// query: text to look for, case-insensitive.
	// limit: the most notes to return; all of them when absent.
	//
	//rpcgen:tool readonly openworld=false meta=`{"notes/kind":"query"}`
	//rpcgen:icon file=icons/note.svg sizes=any
	//rpcgen:app uri=ui://notes/board.html file=board.html title="Notes board" description="The notes as a list, with a field to add one." border
	SearchNotes(ctx context.Context, query string, limit *int) ([]Note, error)

	// GetNote returns the note with the given id.
	//
	// id: the note's id, as AddNote returned it.
	//
	//rpcgen:tool readonly openworld=false
	GetNote(ctx context.Context, id NoteID) (Note, error)

	// DeleteNote removes a note. Deleting a note that does not exist is an
	// error.
	//
	// id: the note's id.
	//
	//rpcgen:tool destructive idempotent openworld=false
	DeleteNote(ctx context.Context, id NoteID) error

	// Reindex rebuilds the search index, reporting progress note by note.
	// It stops early when the call is cancelled.
	//
	//rpcgen:tool idempotent openworld=false
	Reindex(ctx context.Context) (ReindexReport, error)

	// Note is one note as an MCP resource, notes://<id>, that a client can
	// read or attach to a conversation.
	//
	//rpcgen:resource uri=notes://{id} name=note title="A note" mime=application/json
	//rpcgen:icon file=icons/note.svg sizes=any
	Note(ctx context.Context, id NoteID) (Note, error)

	// CompleteNoteID suggests the ids of stored notes that start with what
	// the user typed.
	//
	//rpcgen:complete resource=notes://{id} arg=id
	CompleteNoteID(ctx context.Context, value string) ([]string, error)

	// ReviewNotes asks the model to review the notes of one priority and to
	// say which can be dropped.
	//
	// priority: the priority of the notes to review.
	//
	//rpcgen:prompt name=review_notes title="Review notes"
	ReviewNotes(ctx context.Context, priority Priority) (string, error)
}

// NoteID identifies a note.
type NoteID string

// Priority says how much a note matters.
type Priority string

// The priorities a note can have.
const (
	// Low is for notes that can wait.
	Low Priority = "low"
	// Normal is the default priority.
	Normal Priority = "normal"
	// High is for notes to act on first.
	High Priority = "high"
)

// NewNote is what a caller gives to store a note.
type NewNote struct {
	// Text of the note.
	Text string `json:"text" jsonschema:"minLength=1,maxLength=10000"`
	// Tags to file the note under.
	Tags []string `json:"tags,omitempty" jsonschema:"maxItems=10"`
	// Priority of the note; normal when absent.
	Priority Priority `json:"priority,omitempty"`
}

// Note is a stored note.
type Note struct {
	ID       NoteID    `json:"id"`
	Text     string    `json:"text"`
	Tags     []string  `json:"tags,omitempty"`
	Priority Priority  `json:"priority"`
	Created  time.Time `json:"created"` // When the note was added.
}

// ReindexReport says what a reindex did.
type ReindexReport struct {
	// Notes is the number of notes indexed.
	Notes int `json:"notes"`
	// Terms is the number of distinct words in the index.
	Terms int `json:"terms"`
}

// Tags counts the notes under each tag. It is an MCP extension
// (io.github.rpcgen/notes-tags) rather than tools: a client that declares the
// extension in its capabilities calls notes-tags/count as an MCP request of
// its own, and the server lists the extension in its capabilities.
//
//rpcgen:extension id=io.github.rpcgen/notes-tags
type Tags interface {
	// Count counts the notes under each tag, and those with none.
	//
	//rpcgen:method idempotent
	Count(ctx context.Context) (TagCounts, error)
}

// TagCounts is how many notes there are under each tag.
type TagCounts struct {
	// Tags maps each tag to the number of notes under it.
	Tags map[string]int `json:"tags"`
	// Untagged is the number of notes with no tag.
	Untagged int `json:"untagged"`
}
