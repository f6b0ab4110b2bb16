package mcphttp

// The client side of a legacy session's standalone stream: a GET that
// carries the server's messages not related to any request
// (resources/updated, list_changed, and the server's own requests).

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
	start := t.startListenLocked()
	s := t.sess
	t.mu.Unlock()
	if start {
		go t.listen(s)
	}
}

// startListenLocked reports whether the standalone stream is to be opened
// now, and counts its goroutine in; t.mu held.
func (t *streamable) startListenLocked() bool {
	if t.incoming == nil || t.cfg.noStandalone || t.listening == t.sess.gen || t.closed || !t.sess.legacy || t.sess.id == nil {
		return false
	}
	t.listening = t.sess.gen
	t.listenWG.Add(1)
	return true
}

// listen reads the standalone stream of session s until Close, the end of
// the session, or a refusal. A stream that ends or breaks is resumed
// (Last-Event-ID) after the server's retry interval, as a server that
// closes it to make the client poll expects; one whose last event id the
// server no longer knows is opened afresh. Up to clientMaxResumes attempts
// in a row may fail.
func (t *streamable) listen(s clientSession) {
	defer t.listenWG.Done()
	t.mu.Lock()
	deliver := t.incoming
	t.mu.Unlock()
	var lastID string
	retry := clientDefaultRetry
	for failures := 0; failures <= clientMaxResumes; {
		body, permanent, err := t.resume(t.closeCtx, lastID, s)
		switch {
		case err == nil:
			failures = 0
			// No response ends this stream: the id matches none.
			_, _, _ = t.readEvents(body, -1, &lastID, &retry, deliver)
			body.Close()
		case t.closeCtx.Err() != nil:
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
		if clientSleep(t.closeCtx, retry) != nil || !t.current(s) {
			return
		}
	}
}
