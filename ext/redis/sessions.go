package redis

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
)

// The keys. A session's keys carry its id as a hash tag, so they live in
// one slot.
func (s *Shared) hashKey(id string) string     { return s.opts.Prefix + "{" + id + "}:s" }
func (s *Shared) subsKey(id string) string     { return s.opts.Prefix + "{" + id + "}:subs" }
func (s *Shared) eventsKey(id string) string   { return s.opts.Prefix + "{" + id + "}:e" }
func (s *Shared) wakeChan(id string) string    { return s.opts.Prefix + "{" + id + "}:w" }
func (s *Shared) claimKey(id, k string) string { return s.opts.Prefix + "{" + id + "}:a:" + k }
func (s *Shared) zsetKey() string              { return s.opts.Prefix + "sessions" }
func (s *Shared) indexPrefix() string          { return s.opts.Prefix + "u:" }

// sessionStore is the mcphttp.SessionStore on Redis.
type sessionStore struct {
	s       *Shared
	toucher toucher
}

// storedState is the part of a session's state written once, at
// initialize; the log level and the subscriptions change and are kept
// apart.
type storedState struct {
	V        string          `json:"v"`
	Caps     json.RawMessage `json:"caps,omitempty"`
	Features []string        `json:"f,omitempty"`
}

func ms(d time.Duration) int64 { return max(d.Milliseconds(), 1) }

// touchSlack is how recently a session's expiry may have been pushed back
// for a Touch to leave it: a 64th of the idle timeout, at most a second
// (for the default 10 minutes, a second), in milliseconds.
func touchSlack(ttl time.Duration) int64 { return min(ttl/64, time.Second).Milliseconds() }

func (st *sessionStore) Create(ctx context.Context, sess *mcphttp.StoredSession, max int, ttl time.Duration) error {
	s := st.s
	state, err := json.Marshal(storedState{V: sess.State.ProtocolVersion, Caps: sess.State.Capabilities, Features: sess.State.Features})
	if err != nil {
		return err
	}
	n, err := createScript.Run(ctx, s.c, []string{s.zsetKey(), s.hashKey(sess.ID)},
		max, ms(ttl), sess.ID, state, sess.Subject, []byte(sess.ClientInfo), sess.Created.UnixMilli()).Int()
	if err != nil {
		return fmt.Errorf("redis: create a session: %w", err)
	}
	if n == 0 {
		return mcphttp.ErrTooManySessions
	}
	if sess.State.LogLevel != "" || len(sess.State.Subscriptions) > 0 {
		if err := st.Update(ctx, sess.ID, mcphttp.SessionUpdate{LogLevel: sess.State.LogLevel}); err != nil {
			return err
		}
		for _, uri := range sess.State.Subscriptions {
			if err := st.Update(ctx, sess.ID, mcphttp.SessionUpdate{Subscribe: uri}); err != nil {
				return err
			}
		}
	}
	return nil
}

func (st *sessionStore) touch(ctx context.Context, id string, ttl time.Duration, full bool) (any, error) {
	s := st.s
	var v any
	err := retry(ctx, func(int) (err error) { // the script only pushes expiries back: safe to run twice
		v, err = touchScript.Run(ctx, s.c, s.touchKeys(id), s.touchArgs(id, ttl, full)...).Result()
		return err
	})
	if errors.Is(err, goredis.Nil) {
		return nil, mcphttp.ErrSessionNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("redis: touch a session: %w", err)
	}
	return v, nil
}

func (st *sessionStore) Touch(ctx context.Context, id string, ttl time.Duration) (mcp.LogLevel, error) {
	return st.toucher.touch(ctx, id, ttl)
}

func (st *sessionStore) Get(ctx context.Context, id string, ttl time.Duration) (*mcphttp.StoredSession, error) {
	sent := time.Now()
	v, err := st.touch(ctx, id, ttl, true)
	if err != nil {
		return nil, err
	}
	// The script pushed the expiry back: the next Touches only read.
	st.toucher.mu.Lock()
	st.toucher.remember(id, ttl, sent)
	st.toucher.mu.Unlock()
	parts, ok := v.([]any)
	if !ok || len(parts) != 2 {
		return nil, errors.New("redis: a session's record is malformed")
	}
	h := map[string]string{}
	flat, _ := parts[0].([]any)
	for i := 0; i+1 < len(flat); i += 2 {
		k, _ := flat[i].(string)
		val, _ := flat[i+1].(string)
		h[k] = val
	}
	var state storedState
	if err := json.Unmarshal([]byte(h["st"]), &state); err != nil {
		return nil, fmt.Errorf("redis: a session's state is malformed: %w", err)
	}
	sess := &mcphttp.StoredSession{ID: id, Subject: h["subj"], Standalone: h["sa"],
		State: mcpserver.SessionState{ProtocolVersion: state.V, Capabilities: state.Caps, Features: state.Features, LogLevel: mcp.LogLevel(h["lvl"])}}
	if info := h["info"]; info != "" {
		sess.ClientInfo = json.RawMessage(info)
	}
	if cr, err := strconv.ParseInt(h["cr"], 10, 64); err == nil {
		sess.Created = time.UnixMilli(cr).UTC()
	}
	subs, _ := parts[1].([]any)
	for _, u := range subs {
		if uri, ok := u.(string); ok {
			sess.State.Subscriptions = append(sess.State.Subscriptions, uri)
		}
	}
	return sess, nil
}

func (st *sessionStore) Update(ctx context.Context, id string, u mcphttp.SessionUpdate) error {
	s := st.s
	uri := u.Subscribe
	if uri == "" {
		uri = u.Unsubscribe
	}
	if u.Subscribe != "" && u.Unsubscribe != "" {
		if err := st.Update(ctx, id, mcphttp.SessionUpdate{Unsubscribe: u.Unsubscribe}); err != nil {
			return err
		}
		u.Unsubscribe = ""
	}
	n, err := updateScript.Run(ctx, s.c, []string{s.hashKey(id), s.subsKey(id), s.indexPrefix() + uri},
		string(u.LogLevel), u.Subscribe, u.Unsubscribe, u.Standalone, id).Int()
	if err != nil {
		return fmt.Errorf("redis: update a session: %w", err)
	}
	if n == 0 {
		return mcphttp.ErrSessionNotFound
	}
	return nil
}

func (st *sessionStore) Delete(ctx context.Context, id string) (bool, error) {
	s := st.s
	n, err := deleteScript.Run(ctx, s.c, []string{s.hashKey(id), s.subsKey(id), s.eventsKey(id), s.zsetKey()}, id, s.indexPrefix()).Int()
	if err != nil {
		return false, fmt.Errorf("redis: delete a session: %w", err)
	}
	return n == 1, nil
}

// matchPage is how many sessions Match reads in one round trip.
const matchPage = 500

// Match tries again, within ctx, a page Redis did not answer because it
// could not be reached (see retry): Match finds the sessions of a
// notification, which is dropped when Match fails.
func (st *sessionStore) Match(ctx context.Context, a mcphttp.Audience, f func(id string) bool) error {
	s := st.s
	if a.URI != "" {
		var ids []string
		err := retry(ctx, func(int) (err error) {
			ids, err = s.c.ZRange(ctx, s.indexPrefix()+a.URI, 0, -1).Result()
			return err
		})
		if err != nil {
			return fmt.Errorf("redis: the sessions subscribed to a resource: %w", err)
		}
		for len(ids) > 0 {
			n := min(len(ids), matchPage)
			if more, err := st.filter(ctx, a, ids[:n], f); err != nil || !more {
				return err
			}
			ids = ids[n:]
		}
		return nil
	}
	for start := int64(0); ; start += matchPage {
		var ids []string
		err := retry(ctx, func(int) (err error) {
			ids, err = s.c.ZRange(ctx, s.zsetKey(), start, start+matchPage-1).Result()
			return err
		})
		if err != nil {
			return fmt.Errorf("redis: the live sessions: %w", err)
		}
		if more, err := st.filter(ctx, a, ids, f); err != nil || !more {
			return err
		}
		if len(ids) < matchPage {
			return nil
		}
	}
}

// filter calls f for the ids of live sessions in a, in one round trip;
// it forgets the subscriptions of sessions that are gone.
func (st *sessionStore) filter(ctx context.Context, a mcphttp.Audience, ids []string, f func(string) bool) (bool, error) {
	s := st.s
	cmds := make([]*goredis.SliceCmd, len(ids))
	err := retry(ctx, func(int) error {
		pipe := s.c.Pipeline()
		for i, id := range ids {
			cmds[i] = pipe.HMGet(ctx, s.hashKey(id), "st", "lvl")
		}
		_, err := pipe.Exec(ctx)
		return err
	})
	if err != nil && !errors.Is(err, goredis.Nil) {
		return false, fmt.Errorf("redis: read sessions: %w", err)
	}
	var gone []any
	for i, id := range ids {
		vals := cmds[i].Val()
		stJSON, ok := vals[0].(string)
		if len(vals) != 2 || !ok {
			gone = append(gone, id)
			continue
		}
		var state storedState
		_ = json.Unmarshal([]byte(stJSON), &state)
		lvl, _ := vals[1].(string)
		ss := mcpserver.SessionState{Features: state.Features, LogLevel: mcp.LogLevel(lvl)}
		if a.URI != "" {
			ss.Subscriptions = []string{a.URI} // the index says so
		}
		if a.Matches(&ss) && !f(id) {
			return false, nil
		}
	}
	if a.URI != "" && len(gone) > 0 {
		s.c.ZRem(ctx, s.indexPrefix()+a.URI, gone...)
	}
	return true, nil
}

func (st *sessionStore) Claim(ctx context.Context, id, key string, ttl time.Duration) (bool, error) {
	s := st.s
	ok, err := s.c.SetNX(ctx, s.claimKey(id, key), 1, ttl).Result()
	if err != nil {
		return false, fmt.Errorf("redis: claim an answer: %w", err)
	}
	return ok, nil
}
