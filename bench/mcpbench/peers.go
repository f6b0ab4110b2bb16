package mcpbench

import "context"

// Peer is one MCP implementation under test: its server, and its own client
// for that server.
type Peer struct {
	// Name is the impl= part of a benchmark's name.
	Name string
	// connect starts a fresh server and connects a client to it over
	// transport, pinned to era's protocol revision.
	connect func(ctx context.Context, transport, era string) (Caller, error)
	// serveStdio serves on the process's stdin and stdout (the stdio
	// subprocess).
	serveStdio func(ctx context.Context) error
}

// Peers lists every peer, rpcgen first.
var Peers = []*Peer{rpcgenPeer, gosdkPeer, mcpgoPeer, mcpgoValidatePeer, referencePeer}

var peerByName = func() map[string]*Peer {
	m := map[string]*Peer{}
	for _, p := range Peers {
		m[p.Name] = p
	}
	return m
}()

// Connect starts a fresh server of the peer and connects its client to it.
func (p *Peer) Connect(ctx context.Context, transport, era string) (Caller, error) {
	return p.connect(ctx, transport, era)
}
