// Package probe is a service for the tests of clients in other languages,
// which call it over HTTP: its methods have bare names (//rpcgen:service
// name=""), as third-party OpenRPC generators need, and it lets a test see
// what the server saw: the headers of a call, and whether a call's context
// was cancelled when the client gave up on it.
//
// Its TypeScript client imports the TypeScript runtime of
// examples/calculator's client (--ts-runtime), as the clients of two
// packages of one application would share one: the tests load both clients
// side by side and check that their errors are one class.
package probe

import (
	"context"
	"errors"
	"math"
	"net/http"
	"sync"
	"time"
)

//go:generate go tool rpcgen --openrpc probe.openrpc.json --openrpc-version 1.2.6 --ts probe_client.ts --ts-runtime ../../examples/calculator/rpcgen_runtime.ts --api-version 1.0.0 Probe

// Probe answers the calls of a client under test.
//
//rpcgen:service name=""
type Probe interface {
	// Echo returns text as it came.
	//
	// text: any text.
	Echo(ctx context.Context, text string) (string, error)

	// Add returns a + b.
	//
	// a: the first addend.
	// b: the second addend.
	Add(ctx context.Context, a, b int) (int, error)

	// Increment returns n plus one. Its value travels as a string, so it
	// keeps every digit in JavaScript, beyond 2^53.
	Increment(ctx context.Context, n Big) (Big, error)

	// Header returns the value of the HTTP header name of this call, "" when
	// it has none.
	//
	// name: a header name, in any case.
	Header(ctx context.Context, name string) (string, error)

	// Hold runs until the call is cancelled, and fails after a minute.
	//
	// tag: names the call for Held and Released.
	Hold(ctx context.Context, tag string) error

	// Held returns once a Hold call with tag is running on the server.
	//
	// tag: the Hold call's tag.
	Held(ctx context.Context, tag string) error

	// Released returns once the Hold call with tag has ended, with why its
	// context ended ("context canceled" when the client gave up on it).
	//
	// tag: the Hold call's tag.
	Released(ctx context.Context, tag string) (string, error)
}

// Big is an int64 written as a JSON string.
type Big struct {
	// Value is an int64, in quotes.
	Value int64 `json:"value,string"`
}

// Impl implements Probe. Its zero value is ready to use.
type Impl struct {
	mu    sync.Mutex
	holds map[string]*hold
}

var _ Probe = (*Impl)(nil)

// hold is what Held and Released wait on: running closes when the Hold
// call with its tag starts, ended when it ends, after why is set.
type hold struct {
	running, ended chan struct{}
	why            string
}

// holdLimit bounds Hold, and the waits of Held and Released, so that a
// client that never cancels leaves no call behind.
const holdLimit = time.Minute

func (p *Impl) hold(tag string) *hold {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.holds == nil {
		p.holds = map[string]*hold{}
	}
	h := p.holds[tag]
	if h == nil {
		h = &hold{running: make(chan struct{}), ended: make(chan struct{})}
		p.holds[tag] = h
	}
	return h
}

// Echo implements Probe.
func (p *Impl) Echo(ctx context.Context, text string) (string, error) { return text, nil }

// Add implements Probe.
func (p *Impl) Add(ctx context.Context, a, b int) (int, error) { return a + b, nil }

// Increment implements Probe.
func (p *Impl) Increment(ctx context.Context, n Big) (Big, error) {
	if n.Value == math.MaxInt64 {
		return Big{}, errors.New("the value is the largest int64")
	}
	return Big{Value: n.Value + 1}, nil
}

type headerKey struct{}

// WithHeaders serves h with each request's headers in its context, for
// Header.
func WithHeaders(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), headerKey{}, r.Header)))
	})
}

// Header implements Probe.
func (p *Impl) Header(ctx context.Context, name string) (string, error) {
	h, _ := ctx.Value(headerKey{}).(http.Header)
	return h.Get(name), nil
}

// Hold implements Probe.
func (p *Impl) Hold(ctx context.Context, tag string) error {
	h := p.hold(tag)
	select {
	case <-h.running:
		return errors.New("a Hold call with this tag already ran")
	default:
	}
	close(h.running)
	timer := time.NewTimer(holdLimit)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		h.why = ctx.Err().Error()
	case <-timer.C:
		h.why = "not cancelled within a minute"
	}
	close(h.ended)
	return errors.New(h.why)
}

// Held implements Probe.
func (p *Impl) Held(ctx context.Context, tag string) error {
	return wait(ctx, p.hold(tag).running)
}

// Released implements Probe.
func (p *Impl) Released(ctx context.Context, tag string) (string, error) {
	h := p.hold(tag)
	if err := wait(ctx, h.ended); err != nil {
		return "", err
	}
	return h.why, nil
}

func wait(ctx context.Context, ch <-chan struct{}) error {
	timer := time.NewTimer(holdLimit)
	defer timer.Stop()
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C:
		return errors.New("waited a minute")
	}
}
