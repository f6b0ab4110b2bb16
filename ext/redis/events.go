package redis

import (
	"context"
	"errors"
	"fmt"
	"strings"

	goredis "github.com/redis/go-redis/v9"

	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttp"
)

// eventStore is the mcphttp.SharedEventStore on Redis: a session's events
// are one stream, each entry the name of its event stream (s) and the
// message (m). An event id is "<stream>_<entry id>": Redis gives the entry
// ids, in order, atomically.
type eventStore struct{ s *Shared }

var errGone = errors.New("redis: the session has ended; the event is not stored")

func (es *eventStore) Append(ctx context.Context, session, stream string, msg []byte) (string, error) {
	s := es.s
	id, err := appendScript.Run(ctx, s.c, []string{s.eventsKey(session), s.hashKey(session)},
		s.opts.MaxEvents, stream, msg, s.wakeChan(session)).Text()
	if errors.Is(err, goredis.Nil) {
		return "", errGone
	}
	if err != nil {
		return "", fmt.Errorf("redis: store an event: %w", err)
	}
	return stream + "_" + id, nil
}

// splitEventID splits an id Append made.
func splitEventID(id string) (stream, entry string, ok bool) {
	i := strings.LastIndexByte(id, '_')
	if i <= 0 {
		return "", "", false
	}
	stream, entry = id[:i], id[i+1:]
	ms, seq, found := strings.Cut(entry, "-")
	if !found || !digits(ms) || !digits(seq) {
		return "", "", false
	}
	return stream, entry, true
}

func digits(s string) bool {
	if s == "" || len(s) > 20 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func (es *eventStore) Replay(ctx context.Context, session, lastEventID string, send func(id string, msg []byte) error) (string, error) {
	s := es.s
	stream, entry, ok := splitEventID(lastEventID)
	if !ok {
		return "", mcphttp.ErrUnknownEvent
	}
	v, err := replayScript.Run(ctx, s.c, []string{s.eventsKey(session)}, entry, stream).Slice()
	if errors.Is(err, goredis.Nil) {
		return "", mcphttp.ErrUnknownEvent
	}
	if err != nil {
		return "", fmt.Errorf("redis: replay events: %w", err)
	}
	for i := 0; i+1 < len(v); i += 2 {
		id, _ := v[i].(string)
		msg, _ := v[i+1].(string)
		if err := send(stream+"_"+id, []byte(msg)); err != nil {
			return stream, err
		}
	}
	return stream, nil
}

func (es *eventStore) DeleteSession(ctx context.Context, session string) error {
	return es.s.c.Del(ctx, es.s.eventsKey(session)).Err()
}

// Watch calls wake after each Append to the session's streams, from the
// moment Redis confirms the subscription.
func (es *eventStore) Watch(ctx context.Context, session string, wake func()) (func(), error) {
	return es.s.ps.subscribe(ctx, es.s.wakeChan(session), func(string) { wake() }, wake, false)
}
