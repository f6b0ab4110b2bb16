package httpguard

import (
	"net"
	"net/http"
	"sync"
)

// PromptShutdown makes srv.Shutdown close, as soon as it begins, the
// connections that have not begun a request. Go's server counts such a
// connection as busy until it is five to six seconds old (golang/go#22682),
// so a Shutdown whose context allows less fails with its deadline whenever a
// client's HTTP transport has just dialled a connection it then did not use
// (transports dial ahead while another connection frees up). A request whose
// first bytes race with the shutdown loses its connection, as it would once
// the server has exited.
//
// Call it before srv serves. It keeps a ConnState hook srv already has and
// calls it after its own. rpchttp.PromptShutdown and mcphttp.PromptShutdown
// call it.
func PromptShutdown(srv *http.Server) {
	f := &freshConns{conns: make(map[net.Conn]struct{})}
	prev := srv.ConnState
	srv.ConnState = func(c net.Conn, st http.ConnState) {
		f.note(c, st)
		if prev != nil {
			prev(c, st)
		}
	}
	srv.RegisterOnShutdown(f.closeAll)
}

// freshConns are a server's connections in http.StateNew.
type freshConns struct {
	mu      sync.Mutex
	conns   map[net.Conn]struct{}
	closing bool
}

func (f *freshConns) note(c net.Conn, st http.ConnState) {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case st != http.StateNew:
		delete(f.conns, c)
	case f.closing:
		c.Close()
	default:
		f.conns[c] = struct{}{}
	}
}

func (f *freshConns) closeAll() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.closing = true
	for c := range f.conns {
		c.Close()
	}
	clear(f.conns)
}
