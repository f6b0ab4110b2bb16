package mcphttpclient

// The client side of a legacy session's standalone stream: a GET that
// carries the server's messages not related to any request
// (resources/updated, list_changed, and the server's own requests).

import (
	"context"
	"sync"
	"time"
)

// SetIncoming sets f to receive the server's messages not related to any
// request, in order, on the goroutine reading the stream: a request must be
// answered (Send) from another goroutine. With f set, once initialize
// started a session that has an id, the transport opens the session's
// standalone GET stream, resumes it (Last-Event-ID) after a broken
// connection, and gives up when the server has none (405) or refuses it.
// mcp.ConnectTransport calls it, before the handshake, on a transport that
// has it.
func (t *streamable) SetIncoming(f func(msg []byte)) {
	t.mu.Lock()
	t.incoming = f
	lctx := t.startListenLocked()
	s := t.sess
	t.mu.Unlock()
	if lctx != nil {
		go t.listen(lctx, s)
	}
}

// startListenLocked returns the context of the standalone stream to open
// now (nil: none), ending the reading of the previous session's, and
// counts its goroutine in; t.mu held.
func (t *streamable) startListenLocked() context.Context {
	if t.incoming == nil || t.cfg.noStandalone || t.listening == t.sess.gen || t.closed || !t.sess.legacy || t.sess.id == nil {
		return nil
	}
	if t.listenCancel != nil {
		t.listenCancel()
	}
	ctx, cancel := context.WithCancel(t.closeCtx)
	t.listening, t.listenCancel = t.sess.gen, cancel
	t.sess.listenUp = &standaloneGate{ch: make(chan struct{})}
	t.listenWG.Add(1)
	return ctx
}

// clientListenWait bounds how long a request of a legacy session waits for
// the session's standalone stream to open (see awaitListen); after one such
// wait, no request waits again.
const clientListenWait = 2 * time.Second

// A standaloneGate is opened once: when the standalone stream is open or
// refused, or when a request has waited clientListenWait for it.
type standaloneGate struct {
	ch   chan struct{}
	once sync.Once
}

func (g *standaloneGate) open() { g.once.Do(func() { close(g.ch) }) }

// awaitListen waits, within ctx and clientListenWait, until the standalone
// stream of s is open (or refused): a server sends its requests and
// notifications not related to a request (an elicitation a tool makes
// without naming its call, say) on that stream only, and drops them while
// none is open. Waiting keeps a call the client makes right after the
// handshake from triggering one before the stream is there to carry it.
func awaitListen(ctx context.Context, s clientSession) {
	if s.listenUp == nil {
		return
	}
	select {
	case <-s.listenUp.ch:
		return
	default:
	}
	timer := time.NewTimer(clientListenWait)
	defer timer.Stop()
	select {
	case <-s.listenUp.ch:
	case <-ctx.Done():
	case <-timer.C:
		s.listenUp.open() // a server slow to answer the GET delays one request, not each
	}
}

// listen reads the standalone stream of session s until Close, the end of
// the session, a new session (ctx ends), or a refusal. A stream that ends
// or breaks is resumed (Last-Event-ID) after the server's retry interval,
// as a server that closes it to make the client poll expects; one whose
// last event id the server no longer knows is opened afresh. Up to
// clientMaxResumes attempts in a row may fail. Only the current session's
// messages are delivered.
func (t *streamable) listen(ctx context.Context, s clientSession) {
	defer t.listenWG.Done()
	defer s.listenUp.open()
	t.mu.Lock()
	incoming := t.incoming
	t.mu.Unlock()
	deliver := func(msg []byte) {
		if t.current(s) {
			incoming(msg)
		}
	}
	var lastID string
	retry := clientDefaultRetry
	for failures := 0; failures <= clientMaxResumes; {
		body, permanent, err := t.resume(ctx, lastID, s)
		s.listenUp.open() // open, or refused: the requests waiting in awaitListen go on
		switch {
		case err == nil:
			failures = 0
			// No response ends this stream: the id matches none.
			_, _, _ = t.readEvents(body, -1, &lastID, &retry, deliver)
			body.Close()
		case ctx.Err() != nil:
			return
		case permanent && lastID == "":
			t.cfg.logger.Debug("mcphttp: no standalone stream", "err", err)
			return
		default:
			if !t.current(s) {
				return // closed, or the session ended (404)
			}
			lastID = "" // an id the server forgot: start afresh
			failures++
		}
		if clientSleep(ctx, retry) != nil || !t.current(s) {
			return
		}
	}
}
