package redis

import (
	"context"
	"errors"
	"strings"
	"time"

	goredis "github.com/redis/go-redis/v9"
)

// What a replica stores for the sessions a notification concerns is stored
// off the path of the call that made it (package mcphttp's fan-out, within
// ten store timeouts). A Redis restarting, or a failover under way, refuses
// or drops commands for a few seconds; storing the notification then would
// drop it although its call was answered. So Append and Match try again,
// until their context ends, a command that failed for a reason that may
// pass: the connection failed (refused, closed, timed out), or Redis
// refused to run it for now (loading its data, a replica that is no longer
// the primary). A command that may have run before its connection failed
// (Redis runs a command, then shuts down before it replies) runs again:
// Match only reads, and Append carries a token that makes its second run
// return the first one's event instead of storing it twice.

// retryFirst and retryMax bound the wait between two tries.
const (
	retryFirst = 25 * time.Millisecond
	retryMax   = 500 * time.Millisecond
)

// retry calls f(0), then f(1), f(2), ... while it fails with an error that
// may pass (transient), waiting a little more each time, until it
// succeeds or ctx ends (then it returns f's last error).
func retry(ctx context.Context, f func(attempt int) error) error {
	wait := retryFirst
	for attempt := 0; ; attempt++ {
		err := f(attempt)
		if err == nil || !transient(err) || ctx.Err() != nil {
			return err
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
		wait = min(2*wait, retryMax)
	}
}

// transient reports whether err may pass: a failure of the connection, or a
// refusal Redis gives while it cannot serve the command yet. Any other
// answer of Redis (nil, a script's error), a closed client and the end of
// the caller's context are not.
func transient(err error) bool {
	if errors.Is(err, goredis.Nil) || errors.Is(err, goredis.ErrClosed) ||
		errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var re goredis.Error
	if errors.As(err, &re) {
		msg := re.Error()
		for _, p := range []string{"LOADING ", "READONLY ", "MASTERDOWN ", "TRYAGAIN ", "BUSY "} {
			if strings.HasPrefix(msg, p) {
				return true
			}
		}
		return false
	}
	return true
}
