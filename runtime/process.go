package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"runtime/debug"
	"sync"
	"sync/atomic"

	"github.com/rpcgen/rpcgen/runtime/internal/jsonscan"
)

// server is the incoming-message core shared by Conn and Processor (which the HTTP
// handler of package rpchttp is built on): it checks, routes and answers messages, so
// every transport behaves identically at the wire.
type server struct {
	handler    Handler
	maxDepth   int
	noBatches  bool
	allowBatch func() bool // overrides noBatches when set
	logger     *slog.Logger
	conn       *Conn    // nil in a Processor: responses have nowhere to go
	tr         *tracker // nil without a CancelMethod: cancellations have nowhere to go
	// dropResponses ignores incoming responses instead of answering them as invalid
	// requests (a Processor: its peer may answer requests it was never sent), unless
	// Options.RejectResponses (HTTP, where the server sends no requests) says otherwise.
	dropResponses bool
	trustResults  bool // skip checking that results are valid JSON
	strictIDs     bool // only string and integer ids (Options.StrictIDs)
	transport     string
}

// message holds the raw top-level members of one JSON-RPC message; nil means absent.
type message struct {
	version, id, method, params, result, errObj []byte
}

// parse slices obj's members into m and reports whether obj is a well-formed object.
// Duplicate members keep the last one, as encoding/json does.
func (m *message) parse(obj []byte) bool {
	c, ok := jsonscan.OpenObject(obj)
	if !ok {
		return false
	}
	for {
		key, val, ok := c.NextMember()
		if !ok {
			break
		}
		m.member(key, val)
	}
	return !c.Malformed()
}

// member keeps the top-level member key (raw, between its quotes) if it is one of the
// envelope's.
func (m *message) member(key, val []byte) {
	switch string(jsonscan.UnescapeKey(key)) {
	case "jsonrpc":
		m.version = val
	case "id":
		m.id = val
	case "method":
		m.method = val
	case "params":
		m.params = val
	case "result":
		m.result = val
	case "error":
		m.errObj = val
	}
}

func (m *message) isResponse() bool {
	return m.method == nil && (m.result != nil || m.errObj != nil)
}

func (m *message) validRequest() bool {
	if string(m.version) != `"2.0"` || len(m.method) == 0 || m.method[0] != '"' {
		return false
	}
	if m.id != nil && !validID(m.id) {
		return false
	}
	if m.result != nil || m.errObj != nil {
		return false
	}
	// A null params is taken as absent: common in the wild and harmless.
	if p := m.params; p != nil && p[0] != '{' && p[0] != '[' && string(p) != "null" {
		return false
	}
	return true
}

// stringOrIntegerID reports whether the raw, valid request id b is a string or an
// integer: not null, and a number with neither a fraction nor an exponent.
func stringOrIntegerID(b []byte) bool {
	if b[0] == '"' {
		return true
	}
	return string(b) != "null" && !bytes.ContainsAny(b, ".eE")
}

// replyID is the id an error reply to m carries: m's own if it was readable and valid.
func (m *message) replyID() []byte {
	if m.id != nil && validID(m.id) {
		return m.id
	}
	return nullID
}

// check rejects what cannot be routed at all: bytes that are not JSON, and JSON nested
// deeper than the limit (before anyone recurses into it). It walks msg once, and when
// msg is an object it fills m with the envelope's members on the way; it reports
// whether msg is a batch (an array).
func (s *server) check(msg []byte, m *message) (e *Error, batch bool) {
	switch jsonscan.Check(msg, s.maxDepth, m.member) {
	case jsonscan.Invalid:
		*m = message{}
		return errParse, false
	case jsonscan.TooDeep:
		*m = message{}
		return errTooDeep(s.maxDepth), false
	}
	return nil, jsonscan.FirstByte(msg) == '['
}

// admit classifies one non-batch message: raw's members are in m when parsed is true
// (check filled them), and are sliced out of raw here otherwise (a batch's element).
// It returns an error to answer with, or serve=true when m is a request or
// notification for the handler. Responses and cancellations are dealt with here, in
// the reader, so they never wait for a handler slot.
func (s *server) admit(raw []byte, m *message, parsed bool) (e *Error, serve bool) {
	if parsed && jsonscan.FirstByte(raw) != '{' || !parsed && !m.parse(raw) {
		return errInvalidRequest, false
	}
	if m.isResponse() && s.conn != nil {
		s.conn.deliver(m)
		return nil, false
	}
	if m.isResponse() && s.dropResponses {
		s.logger.Debug("jsonrpc: dropped a response, since no call is pending", "id", string(m.id))
		return nil, false
	}
	if !m.validRequest() {
		return errInvalidRequest, false
	}
	if s.strictIDs && m.id != nil && !stringOrIntegerID(m.id) {
		m.id = nullID // not an id the peer may use: the error names none
		return errInvalidRequest, false
	}
	if m.id == nil && s.conn != nil && s.conn.streamControl(m) {
		return nil, false
	}
	if m.id == nil && s.tr != nil && s.tr.cancelNotification(m) {
		return nil, false
	}
	return nil, true
}

// process answers one checked-or-not message synchronously and appends the reply, if
// any, to buf. A Processor and batches go through here; Conn runs single requests
// asynchronously but through the same steps.
func (s *server) process(ctx context.Context, msg, buf []byte) []byte {
	var m message
	e, batch := s.check(msg, &m)
	if e != nil {
		return appendErrorResponse(buf, nullID, e)
	}
	if batch {
		return s.serveBatch(ctx, msg, buf)
	}
	return s.serveOne(ctx, msg, &m, true, buf)
}

// serveOne answers one message, raw, whose members are in m when parsed is true.
func (s *server) serveOne(ctx context.Context, raw []byte, m *message, parsed bool, buf []byte) []byte {
	e, ok := s.admit(raw, m, parsed)
	if e != nil {
		return appendErrorResponse(buf, m.replyID(), e)
	}
	if !ok {
		return buf
	}
	// No shutdown check here: the message was read before any shutdown began
	// (the reader refuses what arrives later), so it is served.
	return s.serve(ctx, m, buf)
}

// batchesAllowed reports whether an incoming batch is served.
func (s *server) batchesAllowed() bool {
	if s.allowBatch != nil {
		return s.allowBatch()
	}
	return !s.noBatches
}

// maxBatchWorkers bounds how many elements of one batch run at once.
const maxBatchWorkers = 8

// serveBatch answers a batch with an array of the non-notification responses, or with
// nothing at all when every element was a notification.
func (s *server) serveBatch(ctx context.Context, msg, buf []byte) []byte {
	if !s.batchesAllowed() {
		return appendErrorResponse(buf, nullID, errNoBatches)
	}
	var elems [][]byte
	c, _ := jsonscan.OpenArray(msg)
	for {
		el, ok := c.NextElem()
		if !ok {
			break
		}
		elems = append(elems, el)
	}
	if len(elems) == 0 {
		return appendErrorResponse(buf, nullID, errInvalidRequest)
	}
	replies := make([][]byte, len(elems))
	workers := min(len(elems), maxBatchWorkers)
	var next atomic.Int64
	work := func() {
		for {
			i := int(next.Add(1) - 1)
			if i >= len(elems) {
				return
			}
			var m message
			replies[i] = s.serveOne(ctx, elems[i], &m, false, nil)
		}
	}
	var wg sync.WaitGroup
	for range workers - 1 {
		wg.Go(work)
	}
	work()
	wg.Wait()

	start := len(buf)
	buf = append(buf, '[')
	for _, r := range replies {
		if len(r) == 0 {
			continue
		}
		if len(buf) > start+1 {
			buf = append(buf, ',')
		}
		buf = append(buf, r...)
	}
	if len(buf) == start+1 {
		return buf[:start]
	}
	return append(buf, ']')
}

// serve runs the handler for the admitted request or notification m and appends its
// response, if any, to buf. ctx is the parent of the handler's context.
func (s *server) serve(ctx context.Context, m *message, buf []byte) []byte {
	in := &incoming{srv: s}
	if m.id != nil {
		in.req.ID = makeID(m.id)
	}
	in.req.Method = methodName(m.method)
	if m.params != nil && string(m.params) != "null" {
		in.req.Params = m.params
	}
	if s.tr != nil {
		s.tr.track(ctx, in)
		defer s.tr.untrack(in)
	} else {
		in.Context = ctx
	}
	result, err := s.call(in)
	if m.id == nil || err != nil && errors.Is(err, ErrNoResponse) {
		return buf
	}
	if err != nil {
		return appendErrorResponse(buf, m.id, wireError(err))
	}
	if result == nil {
		result = nullID
	} else if !s.trustResults && !json.Valid(result) {
		s.logger.Error("jsonrpc: handler returned invalid JSON", "method", in.req.Method)
		return appendErrorResponse(buf, m.id, errInternal)
	}
	return appendResult(buf, m.id, result)
}

// call runs the handler, turning a panic into an internal error so one bad request
// cannot take down the connection or the process.
func (s *server) call(in *incoming) (result json.RawMessage, err error) {
	defer func() {
		if v := recover(); v != nil {
			s.logger.Error("jsonrpc: handler panicked", "method", in.req.Method, "panic", v, "stack", string(debug.Stack()))
			result, err = nil, errInternal
		}
	}()
	if s.handler == nil {
		return nil, ErrMethodNotFound(in.req.Method)
	}
	return s.handler.ServeRPC(in, &in.req)
}

// methodNames interns method names, process-wide, so the steady stream of the
// same few methods allocates no string per request, and a connection keeps no
// cache of its own. Reads take no lock: the map is replaced, never changed.
var methodNames struct {
	mu sync.Mutex
	m  atomic.Pointer[map[string]string]
}

// maxCachedNames stops peers inventing names from growing the cache without bound.
const maxCachedNames = 256

// methodName returns the method name of the raw JSON string raw.
func methodName(raw []byte) string {
	inner := raw[1 : len(raw)-1]
	if hasEscape(inner) {
		var s string
		_ = json.Unmarshal(raw, &s) // raw was validated as a JSON string
		return s
	}
	if m := methodNames.m.Load(); m != nil {
		if s, ok := (*m)[string(inner)]; ok {
			return s
		}
	}
	s := string(inner)
	methodNames.mu.Lock()
	defer methodNames.mu.Unlock()
	old := methodNames.m.Load()
	if old != nil && len(*old) >= maxCachedNames {
		return s
	}
	if old != nil {
		if cached, ok := (*old)[s]; ok {
			return cached
		}
	}
	m := make(map[string]string, 1+lenMap(old))
	if old != nil {
		for k, v := range *old {
			m[k] = v
		}
	}
	m[s] = s
	methodNames.m.Store(&m)
	return s
}

func lenMap(m *map[string]string) int {
	if m == nil {
		return 0
	}
	return len(*m)
}

func hasEscape(b []byte) bool {
	for _, c := range b {
		if c == '\\' {
			return true
		}
	}
	return false
}
