package runtime

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"
)

// ErrConnectionLost is wrapped by the error of a call whose request was sent
// when the connection ended before its response: the peer may or may not have
// run it, so only a method declared idempotent may be tried again. The error
// also wraps ErrClosed.
var ErrConnectionLost = errors.New("jsonrpc: the connection ended with the call in flight: it may or may not have run")

// ErrNotSent is wrapped by the error of a call whose request never reached the
// peer whole: the connection was already closed, could not be made, or failed
// while the request was written. Trying again is safe for any method.
var ErrNotSent = errors.New("jsonrpc: the request was not sent")

// lostError is the error a pending call gets when its connection ends.
type lostError struct{ cause error }

func (e *lostError) Error() string { return ErrConnectionLost.Error() + " (" + e.cause.Error() + ")" }

func (e *lostError) Unwrap() []error { return []error{ErrConnectionLost, e.cause} }

// notSentError marks an error that stopped a request before it was written.
type notSentError struct{ cause error }

func (e *notSentError) Error() string { return e.cause.Error() }

func (e *notSentError) Unwrap() []error { return []error{ErrNotSent, e.cause} }

// NotSent wraps err so that it also matches ErrNotSent: for transports (dialers,
// say) that know a request never left.
func NotSent(err error) error {
	if err == nil || errors.Is(err, ErrNotSent) {
		return err
	}
	return &notSentError{err}
}

// IdempotentCaller is a Caller that can retry a call when the method is declared
// idempotent (//rpcgen:method idempotent, or a tool that is readonly or
// idempotent): generated clients call CallIdempotent for those methods, through
// the function CallIdempotent. A Redialer is one; middleware wrapping a Caller
// should forward it.
type IdempotentCaller interface {
	Caller
	// CallIdempotent is Call for a method that may run more than once with the
	// same effect as once, so a call lost with its connection may be retried.
	CallIdempotent(ctx context.Context, method string, params, result any) error
}

// CallIdempotent is Call for a method declared idempotent: through
// c.CallIdempotent when c is an IdempotentCaller, else through c.Call. It is the
// body of a generated client's idempotent methods.
func CallIdempotent[R any](ctx context.Context, c Caller, method string, params any) (R, error) {
	ic, ok := c.(IdempotentCaller)
	if !ok {
		return Call[R](ctx, c, method, params)
	}
	var result R
	if err := ic.CallIdempotent(ctx, method, params, &result); err != nil {
		var zero R
		return zero, err
	}
	return result, nil
}

// RetryPolicy says when and how often a call is tried again. It is the one place
// the runtime decides retries: Redialer uses it for calls and for dialling, and
// other transports and middleware can use it too. The zero value is usable.
type RetryPolicy struct {
	// Attempts bounds the tries of one call, the first included (default 4); 1
	// never retries.
	Attempts int
	// MinDelay and MaxDelay bound the wait before a retry (defaults 50 ms and 2 s):
	// the n-th retry waits a random time up to MinDelay·2ⁿ⁻¹, at most MaxDelay
	// ("full jitter"), so many clients that lost one server do not all come back
	// at once.
	MinDelay, MaxDelay time.Duration
	// Retryable decides whether err may be retried; nil means the function
	// Retryable.
	Retryable func(err error, idempotent bool) bool
}

// Retryable is the default retry rule: a request that was never sent
// (ErrNotSent) may be retried whatever the method; one lost in flight
// (ErrConnectionLost) only when the method is idempotent; nothing else is (an
// error response, a context that ended, a decoding error).
func Retryable(err error, idempotent bool) bool {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	if errors.Is(err, ErrNotSent) {
		return true
	}
	return idempotent && errors.Is(err, ErrConnectionLost)
}

// Delay is how long to wait before retry number n (1 for the first retry).
func (p RetryPolicy) Delay(n int) time.Duration {
	lo, hi := p.MinDelay, p.MaxDelay
	if lo <= 0 {
		lo = 50 * time.Millisecond
	}
	if hi <= 0 {
		hi = 2 * time.Second
	}
	d := lo
	for i := 1; i < n && d < hi; i++ {
		d *= 2
	}
	d = min(d, hi)
	return time.Duration(rand.Int64N(int64(d)) + 1)
}

func (p RetryPolicy) attempts() int {
	if p.Attempts <= 0 {
		return 4
	}
	return p.Attempts
}

// noRetryKey marks a context whose calls are tried once (WithoutRetry).
type noRetryKey struct{}

// WithoutRetry returns a context under which calls are tried once, whatever
// the retry policy of the caller (RetryPolicy.Do, Retry, a Redialer, an MCP
// client) says: for a caller that handles failures itself.
func WithoutRetry(ctx context.Context) context.Context {
	return context.WithValue(ctx, noRetryKey{}, true)
}

// RetryOff reports whether ctx comes from WithoutRetry.
func RetryOff(ctx context.Context) bool { return ctx.Value(noRetryKey{}) != nil }

// Do runs call until it succeeds, fails with an error the policy does not
// retry, has run Attempts times, or ctx ends; it returns call's last error.
// Under a context from WithoutRetry it runs call once.
func (p RetryPolicy) Do(ctx context.Context, idempotent bool, call func(ctx context.Context) error) error {
	retryable := p.Retryable
	if retryable == nil {
		retryable = Retryable
	}
	attempts := p.attempts()
	if RetryOff(ctx) {
		attempts = 1
	}
	for n := 1; ; n++ {
		err := call(ctx)
		if err == nil || n >= attempts || !retryable(err, idempotent) || ctx.Err() != nil {
			return err
		}
		t := time.NewTimer(p.Delay(n))
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return err
		}
	}
}
