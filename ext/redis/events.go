package redis

import (
	"context"
	"errors"
	"fmt"
	"strconv"
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
	var id string
	token := s.appendToken()
	err := retry(ctx, func(attempt int) (err error) {
		id, err = appendScript.Run(ctx, s.c, []string{s.eventsKey(session), s.hashKey(session)},
			s.opts.MaxEvents, stream, msg, s.wakeChan(session), token, min(attempt, 1)).Text()
		return err
	})
	if errors.Is(err, goredis.Nil) {
		return "", errGone
	}
	if err != nil {
		return "", fmt.Errorf("redis: store an event: %w", err)
	}
	return stream + "_" + id, nil
}

// appendToken returns a token no other Append of any replica has: this
// Shared's random prefix and a count.
func (s *Shared) appendToken() string {
	return s.tokenPrefix + strconv.FormatUint(s.appends.Add(1), 36)
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

// Replay replays the events of lastEventID's stream stored after it. An
// event id of the right form that Redis does not have is a position all
// the same (entry ids are ordered): its stream's later events are
// replayed, so a client resumes rather than getting 400 "unknown
// Last-Event-ID". That happens after a failover to a replica that had not
// received the primary's last writes, after a crash of a Redis whose
// append-only file had not synced them, and when the client is so far
// behind that its event was trimmed (MaxEvents): then what came between
// is lost to it, which is logged. The events of a session that is gone
// are unknown. A replay Redis did not answer is tried again within ctx
// (see retry): a follower replays when its pub/sub connection is back,
// which may be before the client's pool dials again.
func (es *eventStore) Replay(ctx context.Context, session, lastEventID string, send func(id string, msg []byte) error) (string, error) {
	s := es.s
	stream, entry, ok := splitEventID(lastEventID)
	if !ok {
		return "", mcphttp.ErrUnknownEvent
	}
	var v []any
	err := retry(ctx, func(int) (err error) {
		v, err = replayScript.Run(ctx, s.c, []string{s.eventsKey(session), s.hashKey(session)}, entry, stream).Slice()
		return err
	})
	if errors.Is(err, goredis.Nil) {
		return "", mcphttp.ErrUnknownEvent
	}
	if err != nil {
		return "", fmt.Errorf("redis: replay events: %w", err)
	}
	if len(v) < 2 {
		return "", errors.New("redis: replay events: a malformed answer")
	}
	if found, _ := v[0].(int64); found == 0 {
		oldest, _ := v[1].(string)
		if oldest != "" && entryBefore(entry, oldest) {
			s.logger.Warn("redis: a stream is resumed from an event trimmed off (Options.MaxEvents): the events between are lost to its client",
				"session", session, "last_event", lastEventID, "oldest_kept", stream+"_"+oldest)
		} else {
			s.logger.Info("redis: a stream is resumed from an event Redis does not have (lost in a failover or a crash); replaying what it has after it",
				"session", session, "last_event", lastEventID)
		}
	}
	for i := 2; i+1 < len(v); i += 2 {
		id, _ := v[i].(string)
		msg, _ := v[i+1].(string)
		if err := send(stream+"_"+id, []byte(msg)); err != nil {
			return stream, err
		}
	}
	return stream, nil
}

// entryBefore reports whether the stream entry id a ("ms-seq", as
// splitEventID checked) comes before b.
func entryBefore(a, b string) bool {
	ams, aseq, _ := strings.Cut(a, "-")
	bms, bseq, _ := strings.Cut(b, "-")
	am, _ := strconv.ParseUint(ams, 10, 64)
	bm, _ := strconv.ParseUint(bms, 10, 64)
	if am != bm {
		return am < bm
	}
	as, _ := strconv.ParseUint(aseq, 10, 64)
	bs, _ := strconv.ParseUint(bseq, 10, 64)
	return as < bs
}

func (es *eventStore) DeleteSession(ctx context.Context, session string) error {
	return es.s.c.Del(ctx, es.s.eventsKey(session)).Err()
}

// Watch calls wake after each Append to the session's streams, from the
// moment Redis confirms the subscription.
func (es *eventStore) Watch(ctx context.Context, session string, wake func()) (func(), error) {
	return es.s.ps.subscribe(ctx, es.s.wakeChan(session), func(string) { wake() }, wake, false)
}
