package main

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
)

// TestResourcePromptCompletion uses the note resource, the id completion and
// the review_notes prompt through the generated NotesMCPClient, over every
// connection (in process and stdio, every revision).
func TestResourcePromptCompletion(t *testing.T) {
	for name, c := range connections(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			notes := NewNotesMCPClient(c)
			a, err := notes.AddNote(ctx, NewNote{Text: "Buy oat milk"})
			if err != nil {
				t.Fatal(err)
			}
			b, err := notes.AddNote(ctx, NewNote{Text: "Call the plumber", Priority: High})
			if err != nil {
				t.Fatal(err)
			}
			got, err := notes.Note(ctx, b.ID)
			if err != nil || got.ID != b.ID || got.Text != "Call the plumber" || got.Priority != High {
				t.Errorf("Note(%s) = %+v, %v", b.ID, got, err)
			}
			// A note that does not exist is "resource not found": -32002, or
			// -32602 in 2026-07-28.
			_, err = notes.Note(ctx, "n999")
			want := int64(-32002)
			if c.ProtocolVersion() == mcp.Version20260728 {
				want = runtime.CodeInvalidParams
			}
			var re *runtime.Error
			if !errors.As(err, &re) || re.Code != want || !strings.Contains(string(re.Data), "notes://n999") {
				t.Errorf("Note(n999): %v; want code %d with the uri", err, want)
			}

			ids, err := notes.CompleteNoteID(ctx, "n")
			if err != nil || !slices.Equal(ids, []string{string(a.ID), string(b.ID)}) {
				t.Errorf("CompleteNoteID(n) = %v, %v; want [%s %s]", ids, err, a.ID, b.ID)
			}

			prompt, err := notes.ReviewNotes(ctx, High)
			if err != nil || !strings.Contains(prompt, "high priority") || !strings.Contains(prompt, "Call the plumber") || strings.Contains(prompt, "oat milk") {
				t.Errorf("ReviewNotes(high) = %q, %v", prompt, err)
			}
			// The priority is checked against the enum, and completed from it.
			_, err = c.GetPrompt(ctx, "review_notes", map[string]string{"priority": "urgent"})
			if !errors.As(err, &re) || re.Code != runtime.CodeInvalidParams {
				t.Errorf("review_notes with priority urgent: %v; want invalid params", err)
			}
			comp, err := c.Complete(ctx, mcp.CompletionRef{Type: "ref/prompt", Name: "review_notes"}, "priority", "h", nil)
			if err != nil || !slices.Equal(comp.Values, []string{"high"}) {
				t.Errorf("complete priority h: %+v, %v", comp, err)
			}
		})
	}
}
