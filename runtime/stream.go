package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
)

// A stream is a call whose result comes as a sequence of items: a method that
// returns iter.Seq2[T, error]. Over a Conn (stdio, TCP, Unix sockets, WebSocket)
// each item is a notification tied to the call, and the call's response ends
// the stream:
//
//	--> {"jsonrpc":"2.0","method":"$/stream.credit","params":{"id":7,"n":128}}
//	--> {"jsonrpc":"2.0","id":7,"method":"feed.watch","params":{"topic":"a"}}
//	<-- {"jsonrpc":"2.0","method":"$/stream","params":{"id":7,"item":{"n":1}}}
//	<-- {"jsonrpc":"2.0","method":"$/stream","params":{"id":7,"item":{"n":2}}}
//	--> {"jsonrpc":"2.0","method":"$/stream.credit","params":{"id":7,"n":64}}
//	<-- {"jsonrpc":"2.0","id":7,"result":null}
//
// Credits bound what is in flight: the server sends an item only while the
// client has granted one, so a client that reads slowly slows the producer and
// neither side buffers more than the window. A client that grants no credit
// before its request (any JSON-RPC library) gets the items as fast as the
// transport takes them. $/stream.cancel with {"id":7} stops the stream: the
// handler's context is cancelled and its loop ends.
const (
	// StreamItemMethod is the notification that carries one item of the stream
	// whose request id is its "id".
	StreamItemMethod = "$/stream"
	// StreamCreditMethod grants the server "n" more items of the stream "id".
	StreamCreditMethod = "$/stream.credit"
	// StreamCancelMethod ends the stream (any request) "id": its handler's
	// context is cancelled.
	StreamCancelMethod = "$/stream.cancel"
)

// DefaultStreamWindow is the number of items a client lets a server send ahead
// of what it has taken; it grants more each time it has taken half of them.
const DefaultStreamWindow = 128

// ItemStream is an open stream as a client reads it, item by item. Package
// rpchttp's Client, Conn and Redialer return one.
type ItemStream interface {
	// Next returns the next item as raw JSON, valid until the next call; at the
	// end of the stream it returns io.EOF, or the error that ended it (an error
	// response is a *Error).
	Next() (json.RawMessage, error)
	// Close ends the stream; if it has not ended, the server is told to stop.
	Close() error
}

// StreamCaller is a Caller that carries streams.
type StreamCaller interface {
	Caller
	// CallStream sends a request for method and returns its stream of items.
	// Cancelling ctx ends the stream as Close does.
	CallStream(ctx context.Context, method string, params any) (ItemStream, error)
}

// Stream calls the stream method over c and returns its items as a sequence: the
// body of a generated client's stream methods. Each range over it makes one call;
// an error (the call's, a broken connection's, an item that does not decode)
// comes as the last pair, with the zero T. Breaking out of the loop ends the
// call, and the server's loop stops.
//
//	for ev, err := range runtime.Stream[Event](ctx, conn, "feed.watch", params) {
//		if err != nil {
//			return err
//		}
//		fmt.Println(ev)
//	}
func Stream[T any](ctx context.Context, c Caller, method string, params any) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		sc, ok := c.(StreamCaller)
		if !ok {
			yield(zero, fmt.Errorf("call %s: %T carries no streams (it has no CallStream method)", method, c))
			return
		}
		s, err := sc.CallStream(ctx, method, params)
		if err != nil {
			yield(zero, err)
			return
		}
		defer s.Close()
		for {
			raw, err := s.Next()
			if errors.Is(err, io.EOF) {
				return
			}
			if err != nil {
				yield(zero, err)
				return
			}
			var v T
			if err := json.Unmarshal(raw, &v); err != nil {
				yield(zero, fmt.Errorf("decode item of %s: %w", method, err))
				return
			}
			if !yield(v, nil) {
				return
			}
		}
	}
}

// AppendStreamItem appends to buf the notification that carries item, one item
// of the stream of request id, and returns the extended slice.
func AppendStreamItem(buf []byte, id ID, item json.RawMessage) []byte {
	buf = append(buf, `{"jsonrpc":"2.0","method":"$/stream","params":{"id":`...)
	if id.IsZero() {
		buf = append(buf, nullID...)
	} else {
		buf = id.appendText(buf)
	}
	buf = append(buf, `,"item":`...)
	buf = append(buf, item...)
	return append(buf, "}}"...)
}

// StreamSink receives the items of a stream that a handler serves, for a
// transport that carries them its own way (package rpchttp as Server-Sent
// Events, package mcp as progress notifications); a Conn needs none.
type StreamSink interface {
	// Item sends one item of the stream of request id, encoded as JSON; raw is
	// valid only during the call. It blocks while the peer has no room for it,
	// which is what slows the producer, and returns an error when the stream
	// cannot go on (the peer went away, ctx ended); the handler's loop then
	// stops.
	Item(ctx context.Context, id ID, raw json.RawMessage) error
}

type sinkKey struct{}

// WithStreamSink returns a context whose stream handlers (ServeStream) send
// their items to s.
func WithStreamSink(ctx context.Context, s StreamSink) context.Context {
	return context.WithValue(ctx, sinkKey{}, s)
}

// MaxCollectedStream bounds the JSON of the items of a stream answered as one
// array, for a peer that reads no stream (a Processor without a StreamSink, an
// HTTP client that does not accept text/event-stream).
const MaxCollectedStream = DefaultMaxMessageSize

// ServeStream serves a stream: it ranges over seq and sends each item to the
// peer, as a notification over a Conn or to the context's StreamSink, then
// returns the result that ends the stream (null). Where the peer reads no
// stream it returns the items as one JSON array instead, up to
// MaxCollectedStream. The first error seq yields ends the stream with that
// error; so does a peer that goes away or cancels, and the loop over seq stops.
// It is the body of a generated dispatcher's stream methods:
//
//	return runtime.ServeStream(ctx, h.impl.Watch(ctx, p.Topic))
func ServeStream[T any](ctx context.Context, seq iter.Seq2[T, error]) (json.RawMessage, error) {
	sink, _ := ctx.Value(sinkKey{}).(StreamSink)
	id := RequestIDFromContext(ctx)
	var col *collector
	if sink == nil {
		in := incomingFrom(ctx)
		switch {
		case in != nil && in.req.ID.IsZero():
			return nil, nil // a notification: nobody would see the items
		case in != nil && in.srv.conn != nil:
			ss := in.srv.conn.openServerStream(in.req.ID.String())
			defer in.srv.conn.closeServerStream(ss)
			sink = ss
		default:
			col = &collector{buf: []byte{'['}}
			sink = col
		}
	}
	e := getEncoder()
	defer e.free()
	for v, err := range seq {
		if err != nil {
			return nil, err
		}
		e.buf.Reset()
		var item any = &v // addressable, as Result encodes a result
		if raw, ok := any(v).(json.RawMessage); ok {
			item = raw
		}
		if err := e.value(item); err != nil {
			return nil, fmt.Errorf("encode stream item: %w", err)
		}
		if err := sink.Item(ctx, id, e.buf.Bytes()); err != nil {
			return nil, err
		}
	}
	if col != nil {
		return append(col.buf, ']'), nil
	}
	return nil, nil
}

// collector gathers a stream's items into one JSON array.
type collector struct{ buf []byte }

func (c *collector) Item(_ context.Context, _ ID, raw json.RawMessage) error {
	if len(c.buf)+len(raw)+2 > MaxCollectedStream {
		return NewError(CodeServerError, fmt.Sprintf("stream too long for one response (over %d bytes): read it as a stream", MaxCollectedStream))
	}
	if len(c.buf) > 1 {
		c.buf = append(c.buf, ',')
	}
	c.buf = append(c.buf, raw...)
	return nil
}

// ParseStreamItem reports whether msg is a stream item notification (see
// StreamItemMethod) and returns the request id it names and the item, which
// share msg's memory: for transports that receive messages some other way, such
// as in Server-Sent Events.
func ParseStreamItem(msg []byte) (id ID, item json.RawMessage, ok bool) {
	var m message
	if !m.parse(msg) || m.id != nil || string(m.method) != `"`+StreamItemMethod+`"` {
		return ID{}, nil, false
	}
	rawID, item := streamParams(m.params, "item")
	if rawID == nil || item == nil {
		return ID{}, nil, false
	}
	return makeID(rawID), item, true
}
