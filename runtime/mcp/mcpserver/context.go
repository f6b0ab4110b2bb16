package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"strconv"
	"sync"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/internal/jsonenc"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/internal/askhook"
)

var levelNames = [...]mcp.LogLevel{mcp.LevelDebug, mcp.LevelInfo, mcp.LevelNotice, mcp.LevelWarning, mcp.LevelError, mcp.LevelCritical, mcp.LevelAlert, mcp.LevelEmergency}

func levelRank(l mcp.LogLevel) (int, bool) {
	for i, n := range levelNames {
		if n == l {
			return i, true
		}
	}
	return 0, false
}

// parseLevel returns the rank of the raw JSON string v naming a level.
func parseLevel(v []byte) (int, bool) {
	for i, n := range levelNames {
		if rawStringIs(v, string(n)) {
			return i, true
		}
	}
	return 0, false
}

func errInvalidLevel(raw []byte) *runtime.Error {
	return runtime.InvalidParams("invalid log level %s (valid levels: debug, info, notice, warning, error, critical, alert, emergency)", raw)
}

// callCtx is the context a tool runs in: the request's context plus what the
// helpers below need, in one allocation.
type callCtx struct {
	context.Context
	ss    *Session
	v     ver
	caps  []byte // the client's capabilities object
	token []byte // the raw progressToken; nil when the client asked for none
	level int    // 2026-07-28: the request's log level rank; -1 for no logging

	hc     *handleCtx    // the Handle call the request came through, nil on a stream
	notify func([]byte)  // where notifications go in process (Handle) ...
	conn   *runtime.Conn // ... or on a stream (Serve)

	// What the call asks the client for (input.go, mrtr.go).
	method string // the request's method
	// 2026-07-28 tools/call, prompts/get and resources/read: the raw params
	// that identify the request, which a requestState is bound to (name and
	// arguments, or uri), and the state of its input requests, nil until the
	// handler asks or a retry brings answers; under mu.
	idName, idArgs []byte
	in             *inputState
	verified       bool // the retry's requestState verified
	// observed: method middleware may observe the call's notifications
	// (ObserveNotifications, ObserverKey), found in the context when one is
	// sent: no field of an observer's two words in every call's allocation.
	observed bool

	// A call of a tool that may be a task (task.go): prelude while it runs
	// in its request before BeginTask, begun once BeginTask was called;
	// task, replay and asked when it runs as a task.
	prelude, begun bool
	task           TaskIO
	replay         map[string]json.RawMessage // the answers of the call's rounds
	asked          int                        // the index of the next positional question

	mu       sync.Mutex // held while a notification is sent, and by finish
	done     bool       // the response is being produced: send nothing more
	sent     bool       // a progress notification went out
	progress float64    // the last one's value
}

// Value answers for askhook.CallKey, the key package ask finds the call
// under, and defers every other key to the parent.
func (cc *callCtx) Value(key any) any {
	if _, ok := key.(askhook.CallKey); ok {
		return cc
	}
	return cc.Context.Value(key)
}

func callFrom(ctx context.Context) *callCtx {
	cc, _ := ctx.Value(askhook.CallKey{}).(*callCtx)
	return cc
}

// finish marks the call done, so no notification can follow its response,
// and reports whether the request was cancelled, in which case it gets none.
func (cc *callCtx) finish() (cancelled bool) {
	cc.mu.Lock()
	cc.done = true
	cancelled = cc.Context.Err() != nil
	cc.mu.Unlock()
	return cancelled
}

// send writes a notification for the call; cc.mu must be held, and the call
// must be neither done nor cancelled.
func (cc *callCtx) send(method string, params []byte) {
	if cc.observed {
		if o := observerFrom(cc.Context); o != nil {
			o.ObserveNotification(method, params)
		}
	}
	if cc.notify != nil {
		msg := make([]byte, 0, len(params)+len(method)+40)
		msg = append(msg, `{"jsonrpc":"2.0","method":"`...)
		msg = append(msg, method...)
		msg = append(msg, `","params":`...)
		msg = append(append(msg, params...), '}')
		cc.notify(msg)
		return
	}
	if cc.conn != nil {
		if err := cc.conn.Notify(context.Background(), method, json.RawMessage(params)); err != nil {
			cc.ss.logger.Debug("mcp: send notification", "method", method, "err", err)
		}
	}
}

// live reports whether the call may still send; cc.mu must be held.
func (cc *callCtx) live() bool { return !cc.done && cc.Context.Err() == nil }

// Progress reports a tool's progress to the client, when the call asked for
// it (a progressToken) and ctx is the tool's context. progress must grow from
// one report to the next: a value not greater than the last one sent is
// dropped, as is any report once the call has returned or been cancelled.
// total (when > 0) is the value progress will reach; message (from 2025-03-26)
// says what is happening.
func Progress(ctx context.Context, progress, total float64, message string) {
	cc := callFrom(ctx)
	if cc != nil && cc.task != nil && finite(progress) && finite(total) {
		cc.mu.Lock()
		defer cc.mu.Unlock()
		if !cc.live() || cc.sent && !(progress > cc.progress) {
			return
		}
		cc.sent, cc.progress = true, progress
		cc.task.Progress(progress, total, message)
		return
	}
	if cc == nil || cc.token == nil || !finite(progress) || !finite(total) {
		return
	}
	cc.mu.Lock()
	defer cc.mu.Unlock()
	if !cc.live() || cc.sent && !(progress > cc.progress) {
		return
	}
	cc.sent, cc.progress = true, progress
	b := make([]byte, 0, 96+len(message))
	b = append(b, `{"progressToken":`...)
	b = append(b, cc.token...)
	b = append(b, `,"progress":`...)
	b = appendNumber(b, progress)
	if total > 0 {
		b = append(b, `,"total":`...)
		b = appendNumber(b, total)
	}
	if message != "" && cc.v.annotations() {
		b = append(b, `,"message":`...)
		b = jsonenc.AppendString(b, message)
	}
	cc.send(mcp.NotificationProgress, append(b, '}'))
}

// Log sends a log message (notifications/message) to the client from a tool,
// ctx being the tool's context. A legacy session gets every level until the
// client calls logging/setLevel, then the levels at or above the one it set; a
// 2026-07-28 request gets messages only when its _meta names a level, and
// only at or above it. data is any value encoding/json can encode (a
// json.RawMessage is sent as is); a message that cannot be encoded, or comes
// after the call returned or was cancelled, is dropped. Log messages must not
// contain secrets or personal data.
func Log(ctx context.Context, level mcp.LogLevel, logger string, data any) {
	cc := callFrom(ctx)
	if cc == nil || cc.task != nil {
		return // a task has no stream for log messages (SEP-2663)
	}
	rank, ok := levelRank(level)
	if !ok {
		return
	}
	if cc.v.modern() && (cc.level < 0 || rank < cc.level) || !cc.v.modern() && !cc.ss.allowsLog(rank) {
		return
	}
	raw, ok := data.(json.RawMessage)
	if !ok || !json.Valid(raw) {
		if raw = marshal(data); raw == nil {
			return
		}
	}
	b := make([]byte, 0, 48+len(logger)+len(raw))
	b = append(b, `{"level":"`...)
	b = append(b, level...)
	b = append(b, '"')
	if logger != "" {
		b = append(b, `,"logger":`...)
		b = jsonenc.AppendString(b, logger)
	}
	b = append(b, `,"data":`...)
	b = append(append(b, raw...), '}')
	cc.mu.Lock()
	defer cc.mu.Unlock()
	if cc.live() {
		cc.send(mcp.NotificationMessage, b)
	}
}

// ClientCapabilities returns the capabilities the client declared: those of
// initialize in a legacy session, the request's own in 2026-07-28. It returns
// nil when ctx is not a tool's context.
func ClientCapabilities(ctx context.Context) json.RawMessage {
	if cc := callFrom(ctx); cc != nil {
		return bytes.Clone(cc.caps)
	}
	return nil
}

// ProtocolVersion returns the protocol revision the tool is being called
// under, or "" when ctx is not a tool's context.
func ProtocolVersion(ctx context.Context) string {
	if cc := callFrom(ctx); cc != nil {
		return verNames[cc.v]
	}
	return ""
}

// RequireClientCapability returns nil when the client declared the top-level
// capability name (such as "elicitation"), and otherwise a *runtime.Error with
// CodeMissingClientCapability and data {"requiredCapabilities": {name: {}}}.
// A tool returns that error as is: the call then fails with that protocol
// error instead of a tool error. Outside a tool's context no capability is
// declared.
func RequireClientCapability(ctx context.Context, name string) error {
	if cc := callFrom(ctx); cc != nil {
		sc, ok := runtime.ScanObject(cc.caps)
		for ok {
			key, val, more := sc.Next()
			if !more {
				break
			}
			if string(key) == name && string(val) != "null" {
				return nil
			}
		}
	}
	data := append([]byte(`{"requiredCapabilities":{`), jsonenc.AppendString(nil, name)...)
	return &runtime.Error{
		Code:    mcp.CodeMissingClientCapability,
		Message: "Server requires the " + name + " capability for this request",
		Data:    append(data, ":{}}}"...),
	}
}

func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

// appendNumber appends f as encoding/json writes a float64.
func appendNumber(b []byte, f float64) []byte {
	format := byte('f')
	if a := math.Abs(f); a != 0 && (a < 1e-6 || a >= 1e21) {
		format = 'e'
	}
	start := len(b)
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// Clean up e-09 to e-9, as encoding/json does.
		if n := len(b) - start; n >= 4 && b[len(b)-4] == 'e' && b[len(b)-3] == '-' && b[len(b)-2] == '0' {
			b[len(b)-2] = b[len(b)-1]
			b = b[:len(b)-1]
		}
	}
	return b
}
