package main

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"testing"

	"github.com/rpcgen/rpcgen/runtime"
)

// panicking is a Notes whose AddNote panics, as a bug would make it.
type panicking struct{ *store }

func (panicking) AddNote(context.Context, NewNote) (Note, error) { panic("bug") }

// TestAnsweredCodesListed makes the server answer each code it can answer
// for a method (bad params, an undeclared error, a panic, a resource that
// does not exist) and checks that the method's errors in the OpenRPC
// document list that code, as a client generated from it expects.
func TestAnsweredCodesListed(t *testing.T) {
	var doc struct {
		Methods []struct {
			Name   string
			Errors []struct {
				Ref string `json:"$ref"`
			}
		}
		Components struct {
			Errors map[string]struct{ Code int64 }
		}
	}
	if err := json.Unmarshal([]byte(notesOpenRPC), &doc); err != nil {
		t.Fatal(err)
	}
	listed := func(method string) []int64 {
		var codes []int64
		for _, m := range doc.Methods {
			if m.Name != method {
				continue
			}
			for _, e := range m.Errors {
				const prefix = "#/components/errors/"
				if len(e.Ref) > len(prefix) {
					codes = append(codes, doc.Components.Errors[e.Ref[len(prefix):]].Code)
				}
			}
		}
		return codes
	}
	ctx := context.Background()
	cases := []struct {
		name, method, params string
		impl                 Notes
	}{
		{"bad params", NotesGetNoteMethod, `{"id":7}`, newStore(0)},
		{"undeclared error", NotesGetNoteMethod, `{"id":"n9"}`, newStore(0)},
		{"panic", NotesAddNoteMethod, `{"text":"x"}`, panicking{newStore(0)}},
		{"no such resource", NotesNoteMethod, `{"id":"n9"}`, newStore(0)},
	}
	for _, c := range cases {
		a, b := runtime.Pipe()
		server := runtime.NewConn(a, runtime.Options{Handler: NewNotesHandler(c.impl)})
		client := runtime.NewConn(b, runtime.Options{})
		err := client.Call(ctx, c.method, json.RawMessage(c.params), nil)
		client.Close()
		server.Close()
		var re *runtime.Error
		if !errors.As(err, &re) {
			t.Errorf("%s: %s answered %v, want a JSON-RPC error", c.name, c.method, err)
			continue
		}
		if codes := listed(c.method); !slices.Contains(codes, re.Code) {
			t.Errorf("%s: %s answered code %d; its OpenRPC errors list only %v", c.name, c.method, re.Code, codes)
		}
	}
}
