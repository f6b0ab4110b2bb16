package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"

	goredis "github.com/redis/go-redis/v9"
)

// memStore keeps the notes of one process: note i has id i+1; a deleted
// note keeps its place with no id.
type memStore struct {
	mu    sync.Mutex
	notes []Note
}

func (m *memStore) add(_ context.Context, n Note) (Note, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n.ID = strconv.Itoa(len(m.notes) + 1)
	m.notes = append(m.notes, n)
	return n, nil
}

func (m *memStore) get(_ context.Context, id string) (Note, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	i, err := strconv.Atoi(id)
	if err != nil || i < 1 || i > len(m.notes) || m.notes[i-1].ID == "" {
		return Note{}, errNotFound
	}
	return m.notes[i-1], nil
}

func (m *memStore) del(_ context.Context, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if i, err := strconv.Atoi(id); err == nil && i >= 1 && i <= len(m.notes) {
		m.notes[i-1] = Note{}
	}
	return nil
}

func (m *memStore) list(context.Context) ([]Note, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.DeleteFunc(slices.Clone(m.notes), func(n Note) bool { return n.ID == "" }), nil
}

// redisStore keeps the notes on Redis, where every replica finds them: a
// hash of JSON notes by id (prefix+"notes"), ids from a counter
// (prefix+"notes:seq"). The sessions and streams are ext/redis's; these
// are the service's own data, which a real service would keep in its
// database.
type redisStore struct {
	c      *goredis.Client
	prefix string
}

func (r *redisStore) add(ctx context.Context, n Note) (Note, error) {
	id, err := r.c.Incr(ctx, r.prefix+"notes:seq").Result()
	if err != nil {
		return Note{}, fmt.Errorf("store the note: %w", err)
	}
	n.ID = strconv.FormatInt(id, 10)
	b, _ := json.Marshal(n)
	if err := r.c.HSet(ctx, r.prefix+"notes", n.ID, b).Err(); err != nil {
		return Note{}, fmt.Errorf("store the note: %w", err)
	}
	return n, nil
}

func (r *redisStore) get(ctx context.Context, id string) (Note, error) {
	b, err := r.c.HGet(ctx, r.prefix+"notes", id).Bytes()
	if errors.Is(err, goredis.Nil) {
		return Note{}, errNotFound
	}
	if err != nil {
		return Note{}, err
	}
	var n Note
	return n, json.Unmarshal(b, &n)
}

func (r *redisStore) del(ctx context.Context, id string) error {
	return r.c.HDel(ctx, r.prefix+"notes", id).Err()
}

func (r *redisStore) list(ctx context.Context) ([]Note, error) {
	all, err := r.c.HGetAll(ctx, r.prefix+"notes").Result()
	if err != nil {
		return nil, err
	}
	notes := make([]Note, 0, len(all))
	for _, b := range all {
		var n Note
		if json.Unmarshal([]byte(b), &n) == nil {
			notes = append(notes, n)
		}
	}
	slices.SortFunc(notes, func(a, b Note) int {
		x, _ := strconv.Atoi(a.ID)
		y, _ := strconv.Atoi(b.ID)
		return x - y
	})
	return notes, nil
}
