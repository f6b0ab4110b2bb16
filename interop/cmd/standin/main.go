// Command standin is a stand-in for examples/notes, written with the official
// MCP Go SDK. It offers the same five tools with the same argument and result
// shapes, so the interop harness can be checked against a server nobody here
// wrote before (and alongside) being pointed at ours.
//
// It serves MCP over stdio. STANDIN_REINDEX_DELAY (a Go duration, default
// 20ms) is how long reindex spends on each note.
//
// The SDK's server answers a cancelled call (with an isError result "context
// canceled"), which the spec says a server should not do and, in 2026-07-28,
// must not; so the stand-in drops what the SDK writes for a cancelled request.
// STANDIN_ANSWER_CANCELLED=1 turns that off, to see the harness catch it, and
// STANDIN_LATE_PROGRESS=1 sends a progress notification after the response.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Note is a stored note, as examples/notes returns it.
type Note struct {
	ID       string    `json:"id"`
	Text     string    `json:"text"`
	Tags     []string  `json:"tags,omitempty"`
	Priority string    `json:"priority"`
	Created  time.Time `json:"created"`
}

// newNote is the argument object of add_note.
type newNote struct {
	Text     string   `json:"text"`
	Tags     []string `json:"tags,omitempty"`
	Priority string   `json:"priority,omitempty"`
}

type searchArgs struct {
	Query string `json:"query"`
	Limit *int   `json:"limit,omitempty"`
}

type idArgs struct {
	ID string `json:"id"`
}

type searchResult struct {
	Result []Note `json:"result"`
}

type reindexReport struct {
	Notes int `json:"notes"`
	Terms int `json:"terms"`
}

// The schemas mirror what rpcgen derives from examples/notes/notes.go.
const (
	noteSchema = `{"type":"object","properties":{` +
		`"id":{"type":"string","description":"NoteID identifies a note."},` +
		`"text":{"type":"string"},` +
		`"tags":{"type":"array","items":{"type":"string"}},` +
		`"priority":{"type":"string","enum":["low","normal","high"]},` +
		`"created":{"type":"string","format":"date-time","description":"When the note was added."}},` +
		`"required":["id","text","priority","created"],"additionalProperties":false}`
	addNoteInput = `{"type":"object","properties":{` +
		`"text":{"type":"string","minLength":1,"maxLength":10000,"description":"Text of the note."},` +
		`"tags":{"type":"array","items":{"type":"string"},"maxItems":10,"description":"Tags to file the note under."},` +
		`"priority":{"type":"string","enum":["low","normal","high"],"description":"Priority of the note; normal when absent."}},` +
		`"required":["text"],"additionalProperties":false}`
	searchInput = `{"type":"object","properties":{` +
		`"query":{"type":"string","description":"text to look for, case-insensitive."},` +
		`"limit":{"type":"integer","description":"the most notes to return; all of them when absent."}},` +
		`"required":["query"],"additionalProperties":false}`
	searchOutput = `{"type":"object","properties":{"result":{"type":"array","items":` + noteSchema + `}},` +
		`"required":["result"],"additionalProperties":false}`
	idInput = `{"type":"object","properties":{"id":{"type":"string","description":"the note's id."}},` +
		`"required":["id"],"additionalProperties":false}`
	emptyInput    = `{"type":"object","additionalProperties":false}`
	reindexOutput = `{"type":"object","properties":{"notes":{"type":"integer"},"terms":{"type":"integer"}},` +
		`"required":["notes","terms"],"additionalProperties":false}`
)

type store struct {
	mu    sync.Mutex
	next  int
	notes []Note // oldest first
}

func (s *store) add(n newNote) Note {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.next++
	if n.Priority == "" {
		n.Priority = "normal"
	}
	note := Note{ID: fmt.Sprintf("n%d", s.next), Text: n.Text, Tags: n.Tags, Priority: n.Priority, Created: time.Now().UTC()}
	s.notes = append(s.notes, note)
	return note
}

func (s *store) find(id string) (int, bool) {
	for i, n := range s.notes {
		if n.ID == id {
			return i, true
		}
	}
	return 0, false
}

func (s *store) snapshot() []Note {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.notes)
}

func tool(name, desc, in, out string, ann *mcp.ToolAnnotations) *mcp.Tool {
	t := &mcp.Tool{Name: name, Description: desc, InputSchema: json.RawMessage(in), Annotations: ann}
	if out != "" {
		t.OutputSchema = json.RawMessage(out)
	}
	return t
}

func main() {
	delay := 20 * time.Millisecond
	if v := os.Getenv("STANDIN_REINDEX_DELAY"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			log.Fatalf("STANDIN_REINDEX_DELAY: %v", err)
		}
		delay = d
	}
	st := &store{}
	server := mcp.NewServer(&mcp.Implementation{Name: "notes-standin", Version: "0.1.0"},
		&mcp.ServerOptions{Instructions: "Stand-in for the rpcgen notes example."})
	f := false
	mcp.AddTool(server, tool("add_note", "AddNote stores a new note and returns it with its id and creation time.",
		addNoteInput, noteSchema, &mcp.ToolAnnotations{IdempotentHint: false, OpenWorldHint: &f}),
		func(ctx context.Context, req *mcp.CallToolRequest, in newNote) (*mcp.CallToolResult, Note, error) {
			return nil, st.add(in), nil
		})
	mcp.AddTool(server, tool("search_notes", "SearchNotes returns the notes whose text contains query, newest first.",
		searchInput, searchOutput, &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: &f}),
		func(ctx context.Context, req *mcp.CallToolRequest, in searchArgs) (*mcp.CallToolResult, searchResult, error) {
			if in.Limit != nil && *in.Limit < 0 {
				return nil, searchResult{}, errors.New(`invalid params: "limit": must not be negative`)
			}
			all := st.snapshot()
			found := []Note{}
			q := strings.ToLower(in.Query)
			for i := len(all) - 1; i >= 0; i-- {
				if in.Limit != nil && len(found) == *in.Limit {
					break
				}
				if strings.Contains(strings.ToLower(all[i].Text), q) {
					found = append(found, all[i])
				}
			}
			return nil, searchResult{Result: found}, nil
		})
	mcp.AddTool(server, tool("get_note", "GetNote returns the note with the given id.",
		idInput, noteSchema, &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: &f}),
		func(ctx context.Context, req *mcp.CallToolRequest, in idArgs) (*mcp.CallToolResult, *Note, error) {
			st.mu.Lock()
			defer st.mu.Unlock()
			i, ok := st.find(in.ID)
			if !ok {
				return nil, nil, fmt.Errorf("note %q not found", in.ID)
			}
			n := st.notes[i]
			return nil, &n, nil
		})
	tru := true
	mcp.AddTool(server, tool("delete_note", "DeleteNote removes a note.",
		idInput, "", &mcp.ToolAnnotations{DestructiveHint: &tru, IdempotentHint: true, OpenWorldHint: &f}),
		func(ctx context.Context, req *mcp.CallToolRequest, in idArgs) (*mcp.CallToolResult, any, error) {
			st.mu.Lock()
			defer st.mu.Unlock()
			i, ok := st.find(in.ID)
			if !ok {
				return nil, nil, fmt.Errorf("note %q not found", in.ID)
			}
			st.notes = slices.Delete(st.notes, i, i+1)
			return &mcp.CallToolResult{Content: []mcp.Content{}}, nil, nil
		})
	mcp.AddTool(server, tool("reindex", "Reindex rebuilds the search index, reporting progress note by note.",
		emptyInput, reindexOutput, &mcp.ToolAnnotations{IdempotentHint: true, OpenWorldHint: &f}),
		func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, reindexReport, error) {
			notes := st.snapshot()
			terms := map[string]bool{}
			token := req.Params.GetProgressToken()
			for i, n := range notes {
				select {
				case <-ctx.Done():
					return nil, reindexReport{}, ctx.Err()
				case <-time.After(delay):
				}
				for _, w := range strings.Fields(strings.ToLower(n.Text)) {
					terms[w] = true
				}
				if token != nil {
					_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
						ProgressToken: token, Progress: float64(i + 1), Total: float64(len(notes)),
						Message: "indexed " + n.ID,
					})
				}
			}
			if token != nil && os.Getenv("STANDIN_LATE_PROGRESS") == "1" {
				// A bug on purpose: progress after the response.
				go func() {
					time.Sleep(20 * time.Millisecond)
					_ = req.Session.NotifyProgress(context.Background(), &mcp.ProgressNotificationParams{
						ProgressToken: token, Progress: float64(len(notes) + 1), Message: "late"})
				}()
			}
			return nil, reindexReport{Notes: len(notes), Terms: len(terms)}, nil
		})
	var transport mcp.Transport = &mcp.StdioTransport{}
	if os.Getenv("STANDIN_ANSWER_CANCELLED") != "1" {
		transport = &quietOnCancel{inner: transport}
	}
	if err := server.Run(context.Background(), transport); err != nil {
		log.Print(err)
	}
}

// quietOnCancel wraps a transport and drops every message about a request
// after the client cancelled it: its response and its progress.
type quietOnCancel struct {
	inner mcp.Transport
}

func (q *quietOnCancel) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := q.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &quietConn{Connection: c, idOfToken: map[string]string{}, cancelled: map[string]bool{}}, nil
}

type quietConn struct {
	mcp.Connection
	mu        sync.Mutex
	idOfToken map[string]string
	cancelled map[string]bool // by request id
}

func (c *quietConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if req, ok := msg.(*jsonrpc.Request); ok && err == nil {
		var p struct {
			Meta      struct{ ProgressToken any } `json:"_meta"`
			RequestID any                         `json:"requestId"`
		}
		_ = json.Unmarshal(req.Params, &p)
		c.mu.Lock()
		switch {
		case req.Method == "notifications/cancelled":
			c.cancelled[fmt.Sprint(p.RequestID)] = true
		case req.IsCall() && p.Meta.ProgressToken != nil:
			c.idOfToken[fmt.Sprint(p.Meta.ProgressToken)] = fmt.Sprint(req.ID.Raw())
		}
		c.mu.Unlock()
	}
	return msg, err
}

func (c *quietConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	c.mu.Lock()
	drop := false
	switch m := msg.(type) {
	case *jsonrpc.Response:
		drop = c.cancelled[fmt.Sprint(m.ID.Raw())]
	case *jsonrpc.Request:
		if m.Method == "notifications/progress" {
			var p struct{ ProgressToken any }
			_ = json.Unmarshal(m.Params, &p)
			id, ok := c.idOfToken[fmt.Sprint(p.ProgressToken)]
			drop = ok && c.cancelled[id]
		}
	}
	c.mu.Unlock()
	if drop {
		return nil
	}
	return c.Connection.Write(ctx, msg)
}
