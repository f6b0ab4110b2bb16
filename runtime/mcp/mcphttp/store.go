package mcphttp

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
)

// SessionStore keeps the legacy Streamable HTTP sessions (2025-03-26 to
// 2025-11-25) where every replica of a server finds them, so that a
// load balancer may send each request of a session to any replica. With
// Options.SessionStore set, a Handler keeps no session only to itself: it
// creates each in the store, checks it there on every request (one call,
// Touch, which also keeps it alive), and ends it there on DELETE. Package
// ext/redis has one on Redis; MemorySessionStore shares sessions between
// the handlers of one process.
//
// A session lives for the idle timeout (ttl) after it was last created,
// got or touched, and is then gone: an implementation lets it expire
// without being told. Implementations must be safe for concurrent use, and
// should return an error rather than wait long for a backend that does not
// answer: the Handler bounds each call with Options.StoreTimeout and
// answers 503 when it fails.
type SessionStore interface {
	// Create records s as a live session for ttl, unless max sessions (of
	// every replica) are live already: then ErrTooManySessions.
	Create(ctx context.Context, s *StoredSession, max int, ttl time.Duration) error
	// Get returns the live session id and keeps it alive for ttl more;
	// ErrSessionNotFound when there is none.
	Get(ctx context.Context, id string, ttl time.Duration) (*StoredSession, error)
	// Touch keeps the live session id alive for ttl more and returns its
	// log level, the one part of its state that changes under a call;
	// ErrSessionNotFound when there is none.
	Touch(ctx context.Context, id string, ttl time.Duration) (mcp.LogLevel, error)
	// Update applies u to the live session id; ErrSessionNotFound when
	// there is none.
	Update(ctx context.Context, id string, u SessionUpdate) error
	// Delete ends the session id and reports whether it was live.
	Delete(ctx context.Context, id string) (bool, error)
	// Match calls f with the id of every live session a notification for
	// a concerns, until f returns false.
	Match(ctx context.Context, a Audience, f func(id string) bool) error
	// Claim records key for session id for ttl and reports whether it is
	// the first to: of two answers to one request the server sent the
	// client (the client retried its POST, say), only the first counts.
	Claim(ctx context.Context, id, key string, ttl time.Duration) (bool, error)
}

// StoredSession is a legacy session as a SessionStore keeps it.
type StoredSession struct {
	// ID is the Mcp-Session-Id.
	ID string `json:"id"`
	// Subject is the token subject that started it (Options.Auth), "" when
	// none: a request with another subject's token finds no such session.
	Subject string `json:"subject,omitempty"`
	// State is what initialize negotiated and the client changed since.
	State mcpserver.SessionState `json:"state"`
	// ClientInfo is the clientInfo object of the client's initialize.
	ClientInfo json.RawMessage `json:"clientInfo,omitempty"`
	// Standalone is the id of the last event of the standalone stream that
	// went out on a connection: a GET without Last-Event-ID gets the events
	// after it.
	Standalone string `json:"standalone,omitempty"`
	// Created is when initialize created it.
	Created time.Time `json:"created"`
}

// SessionUpdate is a change to a stored session; the zero fields change
// nothing.
type SessionUpdate struct {
	// LogLevel is the level of a logging/setLevel.
	LogLevel mcp.LogLevel
	// Subscribe and Unsubscribe add and remove a resource subscription.
	Subscribe, Unsubscribe string
	// Standalone moves StoredSession.Standalone.
	Standalone string
}

// Audience says which sessions a notification that belongs to no request
// goes to: the sessions that match every field set.
type Audience struct {
	// URI: sessions subscribed to this resource (resources/updated).
	URI string
	// Feature: sessions whose initialize declared it ("resources",
	// "prompts": their list_changed).
	Feature string
	// Level: sessions whose log level lets a message of this level
	// through (notifications/message).
	Level mcp.LogLevel
}

// Matches reports whether a session in state st is in the audience.
func (a Audience) Matches(st *mcpserver.SessionState) bool {
	if a.URI != "" && !contains(st.Subscriptions, a.URI) {
		return false
	}
	if a.Feature != "" && !contains(st.Features, a.Feature) {
		return false
	}
	if a.Level != "" && !LevelAllows(st.LogLevel, a.Level) {
		return false
	}
	return true
}

// LevelAllows reports whether a session whose logging/setLevel set min
// ("" for none) gets a message at level.
func LevelAllows(min, level mcp.LogLevel) bool {
	if min == "" {
		return true
	}
	return levelIndex(level) >= levelIndex(min)
}

func levelIndex(l mcp.LogLevel) int {
	for i, n := range []mcp.LogLevel{mcp.LevelDebug, mcp.LevelInfo, mcp.LevelNotice, mcp.LevelWarning,
		mcp.LevelError, mcp.LevelCritical, mcp.LevelAlert, mcp.LevelEmergency} {
		if n == l {
			return i
		}
	}
	return -1
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Errors of a SessionStore.
var (
	// ErrSessionNotFound: no live session has that id.
	ErrSessionNotFound = errors.New("mcphttp: no such session")
	// ErrTooManySessions: Create found the limit reached.
	ErrTooManySessions = errors.New("mcphttp: too many sessions")
)

// SharedEventStore is an EventStore that the replicas of a server share: a
// stream one replica writes, another can replay and follow. A Handler with
// a SessionStore needs one as its EventStore.
type SharedEventStore interface {
	EventStore
	// Watch calls wake after each event appended to a stream of session,
	// by any replica, until stop is called; when it returns, every event
	// appended later wakes it. wake must not block. A store that loses its
	// connection calls wake when it is back, since events may have come
	// meanwhile.
	Watch(ctx context.Context, session string, wake func()) (stop func(), err error)
}
