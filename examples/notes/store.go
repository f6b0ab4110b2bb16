package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
)

// store is an in-memory Notes. It knows nothing of MCP apart from reporting
// progress and log messages through the context, which is a no-op when it is
// called as plain Go.
type store struct {
	mu     sync.Mutex
	next   int
	notes  map[NoteID]Note
	index  map[string][]NoteID
	now    func() time.Time
	pause  time.Duration // Reindex's pause per note, standing in for real work
	maxTag int
}

func newStore(pause time.Duration) *store {
	return &store{notes: map[NoteID]Note{}, now: time.Now, pause: pause, maxTag: 64}
}

var errNotFound = errors.New("no note with that id")

func (s *store) AddNote(ctx context.Context, note NewNote) (Note, error) {
	for _, tag := range note.Tags {
		if len(tag) > s.maxTag {
			return Note{}, fmt.Errorf("tag %.20q... is longer than %d bytes", tag, s.maxTag)
		}
	}
	if note.Priority == "" {
		note.Priority = Normal
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.next++
	n := Note{
		ID:       NoteID("n" + strconv.Itoa(s.next)),
		Text:     note.Text,
		Tags:     note.Tags,
		Priority: note.Priority,
		Created:  s.now().UTC(),
	}
	s.notes[n.ID] = n
	return n, nil
}

func (s *store) SearchNotes(ctx context.Context, query string, limit *int) ([]Note, error) {
	if limit != nil && *limit < 0 {
		return nil, fmt.Errorf("limit must not be negative, got %d", *limit)
	}
	q := strings.ToLower(query)
	s.mu.Lock()
	var found []Note
	for _, n := range s.notes {
		if strings.Contains(strings.ToLower(n.Text), q) {
			found = append(found, n)
		}
	}
	s.mu.Unlock()
	// Newest first; ids break ties between notes added in the same instant.
	slices.SortFunc(found, func(a, b Note) int {
		if c := b.Created.Compare(a.Created); c != 0 {
			return c
		}
		return idNumber(b.ID) - idNumber(a.ID)
	})
	if limit != nil && len(found) > *limit {
		found = found[:*limit]
	}
	if found == nil {
		found = []Note{}
	}
	return found, nil
}

func idNumber(id NoteID) int {
	n, _ := strconv.Atoi(strings.TrimPrefix(string(id), "n"))
	return n
}

func (s *store) GetNote(ctx context.Context, id NoteID) (Note, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n, ok := s.notes[id]
	if !ok {
		return Note{}, fmt.Errorf("get %q: %w", id, errNotFound)
	}
	return n, nil
}

func (s *store) DeleteNote(ctx context.Context, id NoteID) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.notes[id]; !ok {
		return fmt.Errorf("delete %q: %w", id, errNotFound)
	}
	delete(s.notes, id)
	return nil
}

func (s *store) Reindex(ctx context.Context) (ReindexReport, error) {
	s.mu.Lock()
	notes := make([]Note, 0, len(s.notes))
	for _, n := range s.notes {
		notes = append(notes, n)
	}
	s.mu.Unlock()
	slices.SortFunc(notes, func(a, b Note) int { return idNumber(a.ID) - idNumber(b.ID) })

	index := map[string][]NoteID{}
	for i, n := range notes {
		select {
		case <-ctx.Done():
			return ReindexReport{}, ctx.Err()
		case <-time.After(s.pause):
		}
		for _, word := range strings.Fields(strings.ToLower(n.Text)) {
			index[word] = append(index[word], n.ID)
		}
		mcpserver.Progress(ctx, float64(i+1), float64(len(notes)), "indexed note "+string(n.ID))
	}
	s.mu.Lock()
	s.index = index
	s.mu.Unlock()
	mcpserver.Log(ctx, mcp.LevelInfo, "notes", fmt.Sprintf("reindexed %d notes, %d terms", len(notes), len(index)))
	return ReindexReport{Notes: len(notes), Terms: len(index)}, nil
}

func (s *store) Note(ctx context.Context, id NoteID) (Note, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n, ok := s.notes[id]
	if !ok {
		return Note{}, mcpserver.ResourceNotFound("notes://" + string(id))
	}
	return n, nil
}

func (s *store) CompleteNoteID(ctx context.Context, value string) ([]string, error) {
	s.mu.Lock()
	var ids []string
	for id := range s.notes {
		if strings.HasPrefix(string(id), value) {
			ids = append(ids, string(id))
		}
	}
	s.mu.Unlock()
	slices.SortFunc(ids, func(a, b string) int { return idNumber(NoteID(a)) - idNumber(NoteID(b)) })
	return ids, nil
}

func (s *store) ReviewNotes(ctx context.Context, priority Priority) (string, error) {
	s.mu.Lock()
	var notes []Note
	for _, n := range s.notes {
		if n.Priority == priority {
			notes = append(notes, n)
		}
	}
	s.mu.Unlock()
	slices.SortFunc(notes, func(a, b Note) int { return idNumber(a.ID) - idNumber(b.ID) })
	var b strings.Builder
	fmt.Fprintf(&b, "Here are my %s priority notes. Review them and tell me which I can drop, and why.\n", priority)
	for _, n := range notes {
		fmt.Fprintf(&b, "- %s: %s\n", n.ID, n.Text)
	}
	if len(notes) == 0 {
		b.WriteString("(there are none)\n")
	}
	return b.String(), nil
}

func (s *store) Count(ctx context.Context) (TagCounts, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := TagCounts{Tags: map[string]int{}}
	for _, n := range s.notes {
		if len(n.Tags) == 0 {
			c.Untagged++
		}
		for _, t := range n.Tags {
			c.Tags[t]++
		}
	}
	return c, nil
}
