package rpchttp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/sse"
)

// A stream method's items go out as Server-Sent Events when the client
// accepts text/event-stream: each event's data is one JSON-RPC message, the
// item notifications (runtime.StreamItemMethod) and then the reply, which ends
// the response. A client that does not accept event streams gets the items as
// one JSON array result (up to runtime.MaxCollectedStream). HTTP's own flow
// control is the backpressure: a client that reads slowly blocks the writes,
// and so the handler's loop; a write that takes longer than streamWriteTimeout
// ends the stream.

// streamWriteTimeout bounds each write of an event to a client.
const streamWriteTimeout = 30 * time.Second

// acceptsEventStream reports whether the Accept header lists text/event-stream.
func acceptsEventStream(r *http.Request) bool {
	for _, v := range r.Header.Values("Accept") {
		for part := range strings.SplitSeq(v, ",") {
			mt, _, _ := strings.Cut(part, ";")
			if strings.EqualFold(strings.TrimSpace(mt), "text/event-stream") {
				return true
			}
		}
	}
	return false
}

// sseSink sends stream items as events, starting the event stream on the
// first one.
type sseSink struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	mu      sync.Mutex
	started bool
	buf     []byte
	err     error // a write failed: the stream cannot go on
}

func newSSESink(w http.ResponseWriter) *sseSink {
	return &sseSink{w: w, rc: http.NewResponseController(w)}
}

func (s *sseSink) Item(ctx context.Context, id runtime.ID, item json.RawMessage) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return s.err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	s.buf = runtime.AppendStreamItem(s.buf[:0], id, item)
	return s.send(s.buf)
}

// send writes msg as one event; s.mu is held.
func (s *sseSink) send(msg []byte) error {
	if !s.started {
		s.started = true
		h := s.w.Header()
		h.Set("Content-Type", "text/event-stream")
		h.Set("Cache-Control", "no-cache")
		h.Set("X-Accel-Buffering", "no")
		s.w.WriteHeader(http.StatusOK)
	}
	_ = s.rc.SetWriteDeadline(time.Now().Add(streamWriteTimeout))
	out := sse.AppendEvent(nil, sse.Event{Data: string(msg)})
	_, err := s.w.Write(out)
	if err == nil {
		err = s.rc.Flush()
	}
	if err != nil {
		s.err = fmt.Errorf("rpchttp: write a stream event: %w", err)
	}
	return s.err
}

// finish writes the reply as the last event, if the stream started; it
// reports whether it did.
func (s *sseSink) finish(reply []byte) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.started {
		return false
	}
	if len(reply) > 0 && s.err == nil {
		s.send(reply)
	}
	return true
}

// CallStream POSTs a request for the stream method and returns its items as
// they arrive, as Server-Sent Events; from a server that answers with JSON
// instead, the items of the array result. Close, or cancelling ctx, closes the
// response, which cancels the handler on the server.
func (c *Client) CallStream(ctx context.Context, method string, params any) (runtime.ItemStream, error) {
	id := c.nextID.Add(1)
	body, err := runtime.AppendRequest(nil, id, method, params)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	resp, err := c.do(ctx, body, "text/event-stream, application/json")
	if err != nil {
		cancel()
		return nil, fmt.Errorf("call %s: %w", method, runtime.NotSent(err))
	}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if resp.StatusCode == http.StatusOK && mt == "text/event-stream" {
		return &eventStream{method: method, id: runtime.Int64ID(id), body: resp.Body, cancel: cancel,
			r: sse.NewReaderSize(resp.Body, maxResponseSize)}, nil
	}
	defer cancel()
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseSize))
	if err != nil {
		return nil, fmt.Errorf("call %s: read response: %w", method, err)
	}
	if resp.StatusCode != http.StatusOK {
		if r, err := runtime.ParseResponse(data); err == nil && r.Err() != nil {
			return nil, r.Err()
		}
		return nil, fmt.Errorf("call %s: http status %s", method, resp.Status)
	}
	r, err := runtime.ParseResponse(data)
	if err != nil {
		return nil, fmt.Errorf("call %s: %w", method, err)
	}
	var items []json.RawMessage
	if err := r.Decode(method, &items); err != nil {
		return nil, err
	}
	return &arrayStream{items: items}, nil
}

// eventStream reads a stream's events.
type eventStream struct {
	method string
	id     runtime.ID
	body   io.ReadCloser
	cancel context.CancelFunc
	r      *sse.Reader
	err    error
}

func (s *eventStream) Next() (json.RawMessage, error) {
	if s.err != nil {
		return nil, s.err
	}
	for {
		ev, err := s.r.Next()
		if err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			s.err = fmt.Errorf("call %s: the event stream ended before its reply: %w", s.method, err)
			s.Close()
			return nil, s.err
		}
		msg := []byte(ev.Data)
		if id, item, ok := runtime.ParseStreamItem(msg); ok {
			if id == s.id {
				return item, nil
			}
			continue
		}
		r, err := runtime.ParseResponse(msg)
		if err != nil || r.ID != s.id {
			continue // not ours (a notification of the server's, say)
		}
		s.Close()
		if s.err = r.Err(); s.err == nil {
			s.err = io.EOF
		}
		return nil, s.err
	}
}

func (s *eventStream) Close() error {
	s.cancel()
	s.body.Close()
	if s.err == nil {
		s.err = fmt.Errorf("stream %s: closed", s.method)
	}
	return nil
}

// arrayStream is a stream a server answered as one array.
type arrayStream struct {
	items []json.RawMessage
	done  bool
}

func (s *arrayStream) Next() (json.RawMessage, error) {
	if len(s.items) == 0 || s.done {
		return nil, io.EOF
	}
	it := s.items[0]
	s.items = s.items[1:]
	return it, nil
}

func (s *arrayStream) Close() error { s.done = true; return nil }
