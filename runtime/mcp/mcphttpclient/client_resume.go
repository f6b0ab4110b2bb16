package mcphttpclient

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp/internal/httpwire"
	"github.com/rpcgen/rpcgen/runtime/sse"
)

// A session-based server may end an event stream's connection before the
// response (polling, or a network failure); the client then resumes the
// stream with a GET carrying Last-Event-ID after the server's retry
// interval, and the server replays what came after that event, so no
// message is lost or repeated.

// readStream reads an event stream to the response to request id, passing
// the other messages to incoming. A legacy stream that ends early is
// resumed, as long as the server gave its events ids.
func (t *streamable) readStream(ctx context.Context, id int64, body io.ReadCloser, s clientSession, legacy bool, incoming func([]byte)) ([]byte, error) {
	var (
		lastID   string
		retry    time.Duration
		failures int
		cause    error
	)
	for {
		if body != nil {
			reply, fresh, err := t.readEvents(body, id, &lastID, &retry, incoming)
			body.Close()
			if reply != nil {
				return reply, nil
			}
			if fresh {
				failures = 0
			}
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			cause = err
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if !legacy || lastID == "" {
			return nil, fmt.Errorf("%w: the event stream ended before the response: %w", runtime.ErrConnectionLost, cause)
		}
		if failures++; failures > clientMaxResumes {
			return nil, fmt.Errorf("%w: the event stream ended before the response, and %d attempts to resume it failed: %v", runtime.ErrConnectionLost, clientMaxResumes, cause)
		}
		if err := clientSleep(ctx, retry); err != nil {
			return nil, err
		}
		var permanent bool
		body, permanent, cause = t.resume(ctx, lastID, s)
		if permanent {
			return nil, cause
		}
	}
}

// readEvents reads one connection's events until the response to request
// id, which it returns. fresh reports whether an event brought a new event
// id (progress, for the bound on reconnections).
func (t *streamable) readEvents(body io.Reader, id int64, lastID *string, retry *time.Duration, incoming func([]byte)) (reply []byte, fresh bool, err error) {
	r := sse.NewReaderSize(body, clientMaxReply)
	for {
		ev, err := r.Next()
		if d := r.Retry(); d > 0 {
			*retry = d
		}
		if err != nil {
			return nil, fresh, err
		}
		if ev.HasID && ev.ID != "" && ev.ID != *lastID {
			*lastID, fresh = ev.ID, true
		}
		if ev.Data == "" || (ev.Type != "" && ev.Type != "message") {
			continue
		}
		msg := []byte(ev.Data)
		var env httpwire.Envelope
		if !env.Scan(msg) {
			t.cfg.logger.Debug("mcphttp: dropped an event that is not a JSON object")
			continue
		}
		if env.IsResponse() {
			if clientIDIs(env.ID, id) {
				return msg, fresh, nil
			}
			t.cfg.logger.Debug("mcphttp: dropped a response to another request", "id", string(env.ID))
			continue
		}
		incoming(msg)
	}
}

// clientSleep waits the retry interval d (the default when 0, capped) or
// until ctx ends.
func clientSleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		d = clientDefaultRetry
	}
	timer := time.NewTimer(min(d, clientMaxRetry))
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// resume GETs the rest of the stream after event lastID (the standalone
// stream when lastID is ""). permanent reports a failure that retrying
// would not mend.
func (t *streamable) resume(ctx context.Context, lastID string, s clientSession) (body io.ReadCloser, permanent bool, err error) {
	req := t.cfg.newRequest(ctx, http.MethodGet, t.u, nil, 0)
	h := req.Header
	h[httpwire.HdrAccept] = httpwire.ValEventStream
	if lastID != "" {
		h[httpwire.HdrLastEventID] = []string{lastID}
	}
	clientSetHeaders(h, &clientMessage{}, s)
	resp, err := t.cfg.do(req, false)
	if err != nil {
		return nil, false, clientClassify(ctx, err)
	}
	code := resp.StatusCode
	switch {
	case code == http.StatusNotFound && s.id != nil:
		clientDiscard(resp)
		t.expire(s)
		return nil, true, clientExpired("resume the event stream", lastID != "")
	case code >= 200 && code <= 299 && clientMediaType(resp.Header.Get(httpwire.HdrContentType), "text/event-stream"):
		return resp.Body, false, nil
	case code == http.StatusNoContent:
		// The server says the stream has ended and nothing is left of it.
		clientDiscard(resp)
		return nil, true, errors.New("resume the event stream: the server ended it without a response (HTTP 204)")
	}
	msg, _ := readClientBody(resp, clientMaxError)
	resp.Body.Close()
	err = fmt.Errorf("resume the event stream: HTTP %s%s", clientStatus(resp), clientErrorSuffix(msg))
	return nil, code >= 400 && code <= 499 && code != http.StatusRequestTimeout && code != http.StatusTooManyRequests, err
}

// clientErrorSuffix returns ": <message>" for a JSON-RPC error body, or "".
func clientErrorSuffix(body []byte) string {
	if m := clientErrorMessage(body); m != "" {
		return ": " + m
	}
	return ""
}
