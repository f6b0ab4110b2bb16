package runtime

import (
	"errors"
	"fmt"
	"sync/atomic"
)

// What a Conn holds for a peer that does not read: every message from the moment it
// asks for the writer until its write returns (answers of handlers, stream items,
// calls and notifications) counts against the connection's MaxUnsent and the
// process's OutputBudget. A peer that reads keeps this near one message; one that
// stops reading makes its handlers' answers wait behind a write that does not
// finish, which without a bound held MaxInflight answers per connection until the
// write timeout.

// Defaults of the output bounds.
const (
	// DefaultMaxUnsent bounds the bytes a connection holds for its peer unless
	// Options.MaxUnsent says otherwise: four messages of the default size limit.
	DefaultMaxUnsent = 4 * DefaultMaxMessageSize
	// DefaultOutputLimit is the limit of DefaultOutputBudget.
	DefaultOutputLimit = 128 << 20
)

// ErrUnread is returned (wrapped) for a message that was not sent because its
// connection already holds Options.MaxUnsent bytes for a peer that has not read
// them, or the process its OutputBudget. Such a message never reached the peer, so
// the error also wraps ErrNotSent.
var ErrUnread = errors.New("jsonrpc: not sent: the peer has not read what it was sent before")

// OutputBudget bounds the bytes that the connections sharing it (by default every
// Conn of the process) hold for peers that do not read them. Once they hold more
// than its limit, a message is refused on a connection that holds more than its
// share (the limit divided among the connections holding anything) and goes on one
// that holds less: a peer that reads, and so holds little, is answered whatever
// the others do. Connections that filled the budget before it was full keep what
// they hold, and the share shrinks as more connections hold, so what connections
// took while fewer held adds up: n connections that do not read, beginning to hold
// one after another, hold up to about the limit times 1 + 1/2 + ... + 1/n (3.1
// for 12, 4.5 for 50), plus one message each. Its methods are safe for concurrent use.
type OutputBudget struct {
	limit   atomic.Int64
	used    atomic.Int64
	holders atomic.Int64 // connections holding anything
}

// NewOutputBudget returns a budget of limit bytes; limit <= 0 means none.
func NewOutputBudget(limit int64) *OutputBudget {
	b := &OutputBudget{}
	b.limit.Store(limit)
	return b
}

// DefaultOutputBudget is the budget of every Conn whose Options name none:
// DefaultOutputLimit (128 MiB) for the whole process; SetLimit changes it.
var DefaultOutputBudget = NewOutputBudget(DefaultOutputLimit)

// SetLimit sets the budget's limit in bytes; <= 0 means none. Messages already
// held are not affected.
func (b *OutputBudget) SetLimit(limit int64) { b.limit.Store(limit) }

// Limit returns the budget's limit in bytes (<= 0: none).
func (b *OutputBudget) Limit() int64 { return b.limit.Load() }

// Used returns the bytes its connections hold for their peers now.
func (b *OutputBudget) Used() int64 { return b.used.Load() }

// Holders returns how many of its connections hold anything for their peers now.
func (b *OutputBudget) Holders() int64 { return b.holders.Load() }

// Unsent returns the bytes c holds for its peer now: messages waiting for the
// writer and the one being written.
func (c *Conn) Unsent() int64 { return c.unsent.Load() }

// unreadError is a message refused by an output bound.
type unreadError struct{ reason string }

func (e *unreadError) Error() string        { return "jsonrpc: " + e.reason }
func (e *unreadError) Is(target error) bool { return target == ErrUnread || target == ErrNotSent }

// hold counts n bytes of a message for the peer until unhold. Unless force is set
// (small errors, which always go), it refuses a message that would take the
// connection over MaxUnsent, while it already holds another: one message at a time
// always goes, whatever its size. And when the message would take the budget over
// its limit, it is refused if its connection then holds more than its share, the
// limit divided among the connections holding anything: those that do not read
// are refused, not those that read and happen to have an answer being written.
// A refused message is uncounted before its error is written, so that the
// budget counts it as briefly as can be.
func (c *Conn) hold(n int, force bool) error {
	held := c.unsent.Add(int64(n))
	used := c.budget.used.Add(int64(n))
	holders := c.budget.holders.Load()
	if held == int64(n) {
		holders = c.budget.holders.Add(1)
	}
	if force || held == int64(n) {
		return nil
	}
	most, limit := int64(c.opts.MaxUnsent), c.budget.Limit()
	overUnsent := most > 0 && held > most
	if !overUnsent && (limit <= 0 || used <= limit || held <= limit/max(holders, 1)) {
		return nil
	}
	c.unhold(n)
	if overUnsent {
		return &unreadError{fmt.Sprintf("not sent: a message of %d bytes would take what this connection holds for a peer that has not read it to %d bytes, over its limit of %d (MaxUnsent)", n, held, most)}
	}
	return &unreadError{fmt.Sprintf("not sent: a message of %d bytes would take what the process holds for peers that have not read it to %d bytes, over its budget of %d (OutputBudget), and this connection already holds %d, over its share", n, used, limit, held-int64(n))}
}

// unhold ends what hold began.
func (c *Conn) unhold(n int) {
	if c.unsent.Add(-int64(n)) == 0 {
		c.budget.holders.Add(-1)
	}
	c.budget.used.Add(-int64(n))
}

// unreadAnswer is the error that replaces an answer an output bound refused.
func unreadAnswer(err error) *Error {
	var ue *unreadError
	if errors.As(err, &ue) {
		return &Error{Code: CodeServerError, Message: "answer " + ue.reason + "; read the answers sent before, or make fewer calls at once"}
	}
	return &Error{Code: CodeServerError, Message: err.Error()}
}
