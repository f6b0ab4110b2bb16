package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"github.com/rpcgen/rpcgen/runtime/mcp"
)

// SessionState is what a legacy session keeps between its requests: what
// its initialize negotiated and what the client changed since. A transport
// that serves a session from several processes (replicas behind a load
// balancer) stores it where every replica finds it (Session.State) and
// rebuilds the session from it (Server.RestoreSession); package mcphttp
// does so through its SessionStore.
type SessionState struct {
	// ProtocolVersion is the negotiated revision, one of LegacyVersions.
	ProtocolVersion string `json:"protocolVersion"`
	// Capabilities is the capabilities object the client's initialize
	// declared.
	Capabilities json.RawMessage `json:"capabilities,omitempty"`
	// Features are the optional features the server's initialize result
	// declared, "resources" and "prompts": the list_changed notifications of
	// the others are not sent to the session.
	Features []string `json:"features,omitempty"`
	// LogLevel is the level of the client's last logging/setLevel; "" until
	// it sends one (every level is sent).
	LogLevel mcp.LogLevel `json:"logLevel,omitempty"`
	// Subscriptions are the resource URIs of the client's resources/subscribe.
	Subscriptions []string `json:"subscriptions,omitempty"`
}

// State returns the session's state, once initialize has succeeded; false
// before.
func (ss *Session) State() (SessionState, bool) {
	st := ss.state.Load()
	if st == nil {
		return SessionState{}, false
	}
	out := SessionState{ProtocolVersion: verNames[st.v], Capabilities: bytes.Clone(st.caps)}
	if l := ss.level.Load(); l > 0 {
		out.LogLevel = levelNames[l-1]
	}
	ss.subs.mu.Lock()
	out.Features = featureNames(ss.subs.kinds)
	for uri := range ss.subs.uris {
		out.Subscriptions = append(out.Subscriptions, uri)
	}
	ss.subs.mu.Unlock()
	slices.Sort(out.Subscriptions)
	return out, true
}

// RestoreSession returns a session already initialized with st, as another
// process (a replica behind the same load balancer) left it: it serves the
// session's requests as the session that initialize started would. It
// returns the session's control too, as NewTransportSession does: the
// session has no outbound until SessionControl.SetOutbound.
func (s *Server) RestoreSession(st SessionState) (*Session, SessionControl, error) {
	v := legacyVersion(st.ProtocolVersion)
	if v == verNone {
		return nil, SessionControl{}, fmt.Errorf("mcp: RestoreSession: %q is not a legacy protocol revision", st.ProtocolVersion)
	}
	caps := json.RawMessage(`{}`)
	if isObject(st.Capabilities) {
		caps = bytes.Clone(st.Capabilities)
	}
	ss := s.NewSession()
	if st.LogLevel != "" {
		rank, ok := levelRank(st.LogLevel)
		if !ok {
			return nil, SessionControl{}, fmt.Errorf("mcp: RestoreSession: unknown log level %q", st.LogLevel)
		}
		ss.level.Store(int32(rank) + 1)
	}
	ss.subs.kinds = featureKinds(st.Features)
	for _, uri := range st.Subscriptions {
		if ss.subs.uris == nil {
			ss.subs.uris = make(map[string]bool, len(st.Subscriptions))
		}
		ss.subs.uris[uri] = true
	}
	ss.state.Store(&legacyState{v: v, caps: caps})
	return ss, SessionControl{ss}, nil
}

func featureNames(k kinds) []string {
	var out []string
	if k&kindResources != 0 {
		out = append(out, "resources")
	}
	if k&kindPrompts != 0 {
		out = append(out, "prompts")
	}
	return out
}

func featureKinds(names []string) kinds {
	var k kinds
	for _, n := range names {
		switch n {
		case "resources":
			k |= kindResources
		case "prompts":
			k |= kindPrompts
		}
	}
	return k
}

// StateChange is a change a client makes to its legacy session's state.
type StateChange struct {
	// LogLevel is set by logging/setLevel.
	LogLevel mcp.LogLevel
	// Subscribe is set by resources/subscribe, Unsubscribe by
	// resources/unsubscribe: the resource's URI.
	Subscribe, Unsubscribe string
}

// sessionExt holds what few sessions use, so that an idle session of a
// single process pays one pointer for it.
type sessionExt struct {
	hook     func(ctx context.Context, c StateChange) error
	idPrefix string // requests the session sends get ids prefix+n, as strings
}

func (ss *Session) ext() *sessionExt {
	if ss.x == nil {
		ss.x = &sessionExt{}
	}
	return ss.x
}

// changeState runs the state hook for c, if any.
func (ss *Session) changeState(ctx context.Context, c StateChange) error {
	if ss.x == nil || ss.x.hook == nil {
		return nil
	}
	return ss.x.hook(ctx, c)
}

// SetLogLevel sets the session's logging/setLevel threshold as the client
// set it elsewhere (another replica); "" sends every level. It reports
// whether level is a known one.
func (ss *Session) SetLogLevel(level mcp.LogLevel) bool {
	if level == "" {
		ss.level.Store(0)
		return true
	}
	rank, ok := levelRank(level)
	if ok {
		ss.level.Store(int32(rank) + 1)
	}
	return ok
}

// appendRequestID appends the id of the session's request n.
func (ss *Session) appendRequestID(b []byte, n int64) []byte {
	if ss.x == nil || ss.x.idPrefix == "" {
		return strconv.AppendInt(b, n, 10)
	}
	b = append(b, '"')
	b = append(b, ss.x.idPrefix...)
	b = strconv.AppendInt(b, n, 10)
	return append(b, '"')
}

// requestNumber returns n of the id raw that appendRequestID wrote.
func (ss *Session) requestNumber(raw string) (int64, bool) {
	if ss.x != nil && ss.x.idPrefix != "" {
		p := ss.x.idPrefix
		if len(raw) < len(p)+3 || raw[0] != '"' || raw[len(raw)-1] != '"' || raw[1:1+len(p)] != p {
			return 0, false
		}
		raw = raw[1+len(p) : len(raw)-1]
	}
	n, err := strconv.ParseInt(raw, 10, 64)
	return n, err == nil
}
