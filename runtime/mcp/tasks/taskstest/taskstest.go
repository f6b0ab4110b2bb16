// Package taskstest is the contract every tasks.Store keeps, as tests a
// store's package runs against its own implementation (MemoryStore's in
// package tasks, Redis's in ext/redis).
package taskstest

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
	"github.com/rpcgen/rpcgen/runtime/mcp/tasks"
)

// Config says how to make the store under test.
type Config struct {
	// New returns an empty store that holds at most max live tasks.
	New func(t *testing.T, max int) tasks.Store
}

// record returns a working task with every field set.
func record() *tasks.Record {
	now := time.Now().UTC().Truncate(time.Millisecond)
	return &tasks.Record{
		ID: rand.Text(), Status: mcp.TaskWorking, StatusMessage: "begun",
		CreatedAt: now, UpdatedAt: now, TTL: time.Hour, PollInterval: 250 * time.Millisecond,
		Job: mcpserver.TaskJob{Tool: "compact", Arguments: json.RawMessage(`{"n":1}`),
			ProtocolVersion: mcp.Version20260728, Principal: "alice",
			Answers: map[string]json.RawMessage{"k0": json.RawMessage(`{"ok":true}`)}},
		InputRequests: map[string]mcp.InputRequest{"k1": {Method: mcp.MethodElicitationCreate, Params: json.RawMessage(`{"message":"sure?"}`)}},
		Answers:       map[string]json.RawMessage{"k2": json.RawMessage(`{"action":"accept"}`)},
		Progress:      1, Total: 4, Runs: 1,
	}
}

// same reports how got differs from want, "" when it does not.
func same(got, want *tasks.Record) string {
	g, _ := json.Marshal(got)
	w, _ := json.Marshal(want)
	if string(g) != string(w) {
		return "got  " + string(g) + "\nwant " + string(w)
	}
	return ""
}

// Run runs the contract against the stores cfg makes.
func Run(t *testing.T, cfg Config) {
	ctx := context.Background()
	t.Run("CreateGet", func(t *testing.T) {
		s := cfg.New(t, 10)
		r := record()
		if err := s.Create(ctx, r); err != nil {
			t.Fatal(err)
		}
		got, err := s.Get(ctx, r.ID)
		if err != nil {
			t.Fatal(err)
		}
		if d := same(got, r); d != "" {
			t.Fatal("the task read back differs:\n" + d)
		}
		if err := s.Create(ctx, r); err == nil {
			t.Fatal("a second Create with the same ID succeeded")
		}
		if _, err := s.Get(ctx, "nope"); !errors.Is(err, tasks.ErrNotFound) {
			t.Fatalf("Get of an unknown task: %v, want ErrNotFound", err)
		}
	})
	t.Run("Update", func(t *testing.T) {
		s := cfg.New(t, 10)
		r := record()
		if err := s.Create(ctx, r); err != nil {
			t.Fatal(err)
		}
		got, err := s.Update(ctx, r.ID, func(r *tasks.Record) error {
			r.Status, r.Result = mcp.TaskCompleted, json.RawMessage(`{"content":[]}`)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		want := record()
		want.ID, want.CreatedAt, want.UpdatedAt = r.ID, r.CreatedAt, r.UpdatedAt
		want.Status, want.Result = mcp.TaskCompleted, json.RawMessage(`{"content":[]}`)
		if d := same(got, want); d != "" {
			t.Fatal("Update's record:\n" + d)
		}
		if got, _ = s.Get(ctx, r.ID); same(got, want) != "" {
			t.Fatal("Get after Update:\n" + same(got, want))
		}
		boom := errors.New("boom")
		if _, err := s.Update(ctx, r.ID, func(r *tasks.Record) error { r.Status = mcp.TaskFailed; return boom }); err != boom {
			t.Fatalf("Update whose fn failed: %v, want fn's error as it is", err)
		}
		if got, _ = s.Get(ctx, r.ID); got.Status != mcp.TaskCompleted {
			t.Fatalf("a failed fn's change was stored: %s", got.Status)
		}
		if _, err := s.Update(ctx, "nope", func(*tasks.Record) error { return nil }); !errors.Is(err, tasks.ErrNotFound) {
			t.Fatalf("Update of an unknown task: %v, want ErrNotFound", err)
		}
	})
	t.Run("UpdateIsAtomic", func(t *testing.T) {
		s := cfg.New(t, 10)
		r := record()
		r.Runs = 0
		if err := s.Create(ctx, r); err != nil {
			t.Fatal(err)
		}
		const workers, each = 8, 25
		var wg sync.WaitGroup
		errs := make(chan error, workers*each)
		for range workers {
			wg.Go(func() {
				for range each {
					if _, err := s.Update(ctx, r.ID, func(r *tasks.Record) error { r.Runs++; return nil }); err != nil {
						errs <- err
					}
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		if got, _ := s.Get(ctx, r.ID); got.Runs != workers*each {
			t.Fatalf("%d concurrent increments left Runs at %d", workers*each, got.Runs)
		}
	})
	t.Run("Delete", func(t *testing.T) {
		s := cfg.New(t, 10)
		r := record()
		if err := s.Create(ctx, r); err != nil {
			t.Fatal(err)
		}
		if err := s.Delete(ctx, r.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Get(ctx, r.ID); !errors.Is(err, tasks.ErrNotFound) {
			t.Fatalf("Get after Delete: %v, want ErrNotFound", err)
		}
		if err := s.Delete(ctx, r.ID); err != nil {
			t.Fatalf("Delete of a task not there: %v", err)
		}
	})
	t.Run("Bound", func(t *testing.T) {
		s := cfg.New(t, 3)
		var ids []string
		for range 3 {
			r := record()
			if err := s.Create(ctx, r); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, r.ID)
		}
		if err := s.Create(ctx, record()); !errors.Is(err, tasks.ErrFull) {
			t.Fatalf("Create beyond the bound: %v, want ErrFull", err)
		}
		if err := s.Delete(ctx, ids[0]); err != nil {
			t.Fatal(err)
		}
		if err := s.Create(ctx, record()); err != nil {
			t.Fatalf("Create after a Delete made room: %v", err)
		}
	})
	t.Run("Subscribe", func(t *testing.T) {
		s := cfg.New(t, 10)
		r := record()
		if err := s.Create(ctx, r); err != nil {
			t.Fatal(err)
		}
		changes, stop := s.Subscribe(r.ID)
		other, stopOther := s.Subscribe("another")
		defer stopOther()
		wait := func(what string) {
			t.Helper()
			select {
			case <-changes:
			case <-time.After(10 * time.Second):
				t.Fatal("no signal after " + what)
			}
		}
		if _, err := s.Update(ctx, r.ID, func(r *tasks.Record) error { r.StatusMessage = "later"; return nil }); err != nil {
			t.Fatal(err)
		}
		wait("an Update")
		if err := s.Delete(ctx, r.ID); err != nil {
			t.Fatal(err)
		}
		wait("a Delete")
		stop()
		select {
		case <-other:
			t.Fatal("a subscriber of another task was signalled")
		default:
		}
	})
}
