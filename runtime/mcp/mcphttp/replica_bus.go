package mcphttp

// What a replica hears on the bus: control messages for every replica and
// the ones addressed to it, and the names of its streams.

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	"github.com/rpcgen/rpcgen/runtime/internal/jsonenc"
)

// onCtl handles a message every replica gets.
func (rep *replica) onCtl(b []byte) {
	var m busMsg
	if json.Unmarshal(b, &m) != nil {
		return
	}
	s := rep.h.session(m.S)
	switch m.T {
	case "ended":
		if s != nil {
			s.end()
		}
		rep.stopFollowers(m.S, "", "")
	case "cancel":
		if s != nil {
			s.ss.Handle(context.Background(), m.M, nil)
		}
	case "taken":
		if s != nil {
			if st := s.findStream(m.Stream); st != nil {
				st.mu.Lock()
				st.detach(releaseTaken)
				st.mu.Unlock()
			}
		}
		rep.stopFollowers(m.S, m.Stream, m.By)
	}
}

// onDirect handles a message for this replica only.
func (rep *replica) onDirect(b []byte) {
	var m busMsg
	if json.Unmarshal(b, &m) != nil {
		return
	}
	switch m.T {
	case "answer":
		if s := rep.h.session(m.S); s != nil {
			s.ss.Handle(context.Background(), m.M, nil)
		}
	case "probe":
		ok := false
		if s := rep.h.session(m.S); s != nil {
			ok = s.findStream(m.Stream) != nil
		}
		rep.publish(replicaTopic(m.By), &busMsg{T: "alive", S: m.S, Stream: m.Stream, OK: ok})
	case "alive":
		if m.OK {
			rep.mu.Lock()
			for ch := range rep.probes[m.S+"\x00"+m.Stream] {
				select {
				case ch <- struct{}{}:
				default:
				}
			}
			rep.mu.Unlock()
		}
	}
}

// notification encodes a JSON-RPC notification.
func notification(method string, params []byte) []byte {
	b := append([]byte(`{"jsonrpc":"2.0","method":`), jsonenc.AppendString(nil, method)...)
	if params != nil {
		b = append(append(b, `,"params":`...), params...)
	}
	return append(b, '}')
}

// streamName names a new POST stream of this replica.
func (rep *replica) streamName() string {
	return rep.id + "-" + strconv.FormatInt(rep.seq.Add(1), 10)
}

// owner returns the replica that writes the stream name.
func owner(name string) string {
	if i := strings.IndexByte(name, '-'); i > 0 {
		return name[:i]
	}
	return ""
}

// keepAlive keeps the sessions this replica is busy with alive in the
// store, and reports whether the session is still there.
func (rep *replica) keepAlive(s *session) bool {
	ctx, cancel := rep.ctx(context.Background())
	defer cancel()
	_, err := rep.sessions.Touch(ctx, s.id, rep.h.opts.SessionIdleTimeout)
	return !errors.Is(err, ErrSessionNotFound)
}

// close stops the replica's subscriptions and followers.
func (rep *replica) close() {
	rep.mu.Lock()
	stops := rep.stops
	rep.stops = nil
	rep.mu.Unlock()
	for _, stop := range stops {
		stop()
	}
	rep.stopFollowers("", "", "")
}
