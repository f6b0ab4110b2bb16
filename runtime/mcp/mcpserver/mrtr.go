package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/internal/cancelhook"
	"github.com/rpcgen/rpcgen/runtime/internal/jsonenc"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/internal/askhook"
	"github.com/rpcgen/rpcgen/runtime/mcp/internal/wire"
)

// In 2026-07-28 a server does not send the client requests: a handler that
// needs input makes the call end with an input_required result naming what
// it needs (inputRequests, each under a key) and a sealed requestState; the
// client retries the same request with the answers (inputResponses, under the
// same keys) and the state, and the handler runs again from the start. A
// key is the one the handler named (ask.Key) or else assigned in the order
// the handler asks ("elicitation/create#0", "sampling/createMessage#1",
// ...), so the re-run finds the answers to its earlier questions under the
// keys they were asked with. The state carries the answers of earlier
// rounds, so a handler that asks twice in sequence completes over two rounds
// without the server keeping anything. An answer to a question of the
// current round needs no state: a server may ask without one (SEP-2322), and
// the answer is checked when the handler asks again.

// inputState is what a 2026-07-28 call knows and asks of the client.
type inputState struct {
	answers map[string]json.RawMessage // by key: from the state, and the retry's once checked
	fresh   []byte                     // the retry's inputResponses object, nil for none
	asked   []inputQuestion            // this round's questions without answers
	keys    map[string]bool            // the keys asked in this run
	n       int                        // the index of the next question
	misused bool                       // a key was asked twice: the call fails as the handler does
}

// inputQuestion is one entry of inputRequests.
type inputQuestion struct {
	key, method string
	params      []byte
}

// mrtrMethod reports whether a 2026-07-28 request of method may end with
// input_required, as the method table says.
func mrtrMethod(method string) bool {
	m := mcp.LookupMethod(method)
	return m != nil && m.InputRequired
}

type principalKey struct{}

// WithPrincipal returns a context under which the requests a Session handles
// are made on behalf of subject, the authenticated principal (such as the
// subject of an OAuth access token). A 2026-07-28 requestState is bound to
// it: state issued to one principal does not verify for another. Package
// mcphttp sets it from the token its authenticator accepted; without it the
// principal is "".
func WithPrincipal(ctx context.Context, subject string) context.Context {
	return context.WithValue(ctx, principalKey{}, subject)
}

// PrincipalFromContext returns the principal WithPrincipal set on ctx, ""
// when none.
func PrincipalFromContext(ctx context.Context) string { return principalFrom(ctx) }

func principalFrom(ctx context.Context) string {
	s, _ := ctx.Value(principalKey{}).(string)
	return s
}

// beginCall prepares cc (whose era fields are set) for running a handler of
// method: the request's context, the session, the progress token, where
// notifications and requests to the client go, and, in 2026-07-28, the state
// and input responses of a retry: an error when requestState does not verify
// or inputResponses holds an answer that is not one.
func (ss *Session) beginCall(ctx context.Context, cc *callCtx, method string, p *reqParams) error {
	cc.Context, cc.ss, cc.token, cc.method = ctx, ss, p.progressToken, method
	cc.observed = ss.srv.observed
	if hc, ok := ctx.Value(handleKey{}).(*handleCtx); ok {
		cc.hc, cc.notify = hc, hc.notify
		// Over HTTP, where notify only queues, a cancellation waits for a
		// notification being sent (under cc.mu) before it returns, so none
		// of the call's is sent once the transport has answered the cancel.
		if b, ok := ctx.Value(cancelhook.Key{}).(cancelhook.Barrier); ok && cc.notify != nil {
			b.SetCancelBarrier(&cc.mu)
		}
	} else {
		cc.conn = runtime.ConnFromContext(ctx)
	}
	if !cc.v.modern() || !mrtrMethod(method) {
		return nil
	}
	if method == mcp.MethodResourcesRead {
		cc.idName = p.uri
	} else {
		cc.idName, cc.idArgs = p.name, p.arguments
	}
	responses := p.inputResponses
	if string(responses) == "null" {
		responses = nil
	}
	if responses != nil && !isObject(responses) {
		return runtime.InvalidParams(`"inputResponses" must be an object`)
	}
	noState := p.requestState == nil || string(p.requestState) == "null"
	if responses == nil && noState {
		// A first call, neither state nor answers (the common case): cc.in
		// stays nil until the handler asks (ask makes it then), so a call
		// that asks nothing allocates nothing for its input.
		return nil
	}
	in := &inputState{fresh: bytes.Clone(responses), answers: map[string]json.RawMessage{}}
	cc.in = in
	if noState {
		// Answers without a state are taken when the handler asks their
		// question again (ask), checked then against what it asks.
		return nil
	}
	d, err := ss.srv.state.open(p.requestState, cc.binding())
	if err != nil {
		return err
	}
	cc.verified = true
	for k, v := range d.Answers {
		in.answers[k] = v
	}
	sc, ok := runtime.ScanObject(responses)
	for ok {
		key, val, more := sc.Next()
		if !more {
			break
		}
		asked, isAsked := d.Asked[string(key)]
		if !isAsked {
			continue // not ours to take: ignored, as the protocol asks
		}
		if err := checkAnswer(asked, val); err != nil {
			return runtime.InvalidParams("inputResponses[%q]: %v", key, err)
		}
		in.answers[string(key)] = bytes.Clone(val)
	}
	return nil
}

// binding returns what cc's requestState is bound to. Without an
// askhook.Crypto its digest stays zero: no state opens then anyway.
func (cc *callCtx) binding() *stateBinding {
	b := &stateBinding{method: cc.method, principal: principalFrom(cc.Context)}
	c := askhook.Installed()
	if c == nil {
		return b
	}
	name := cc.idName
	if s, ok := unquote(name); ok {
		name = []byte(s)
	}
	args := canonicalJSON(cc.idArgs)
	data := make([]byte, 0, len(name)+1+len(args))
	data = append(append(append(data, name...), 0), args...)
	b.digest = c.Sum256(data)
	return b
}

// canonicalJSON returns v with its object members sorted and no space, so a
// client that re-encodes the same params for its retry gets the same digest.
// No value (nil or null) is the empty object, as arguments go.
func canonicalJSON(v []byte) []byte {
	if len(v) == 0 || string(v) == "null" {
		return []byte("{}")
	}
	d := json.NewDecoder(bytes.NewReader(v))
	d.UseNumber()
	var x any
	if d.Decode(&x) != nil {
		return v
	}
	out, err := json.Marshal(x)
	if err != nil {
		return v
	}
	return out
}

// ask returns the answer to the next question of a 2026-07-28 call, asked
// under key ("" for the next positional one), or records the question and
// returns ErrInputRequired. An answer comes from the verified state, or from
// the retry's inputResponses when it is a valid result of method; one that
// is not counts as missing, and the question is asked again.
func (cc *callCtx) ask(method, key string, params []byte) (json.RawMessage, error) {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	if cc.done {
		return nil, errCallReturned
	}
	in := cc.in
	if in == nil {
		in = &inputState{answers: map[string]json.RawMessage{}}
		cc.in = in
	}
	if key == "" {
		key = method + "#" + strconv.Itoa(in.n)
	}
	in.n++
	if in.keys[key] {
		in.misused = true
		return nil, fmt.Errorf("mcp: two questions of one call under the key %q", key)
	}
	if in.keys == nil {
		in.keys = map[string]bool{}
	}
	in.keys[key] = true
	if ans, ok := in.answers[key]; ok {
		return ans, nil
	}
	if ans := wire.Member(in.fresh, key); ans != nil && checkAnswer(method, ans) == nil {
		ans = bytes.Clone(ans)
		in.answers[key] = ans
		return ans, nil
	}
	in.asked = append(in.asked, inputQuestion{key: key, method: method, params: params})
	return nil, ErrInputRequired
}

// inputRequired returns the input_required result when the handler asked
// the client for input it did not have (2026-07-28), after cc.finish.
func (cc *callCtx) inputRequired() (json.RawMessage, bool) {
	in := cc.in
	if in == nil || len(in.asked) == 0 || in.misused {
		return nil, false
	}
	d := stateData{Asked: make(map[string]string, len(in.asked))}
	if len(in.answers) > 0 {
		d.Answers = in.answers
	}
	for _, q := range in.asked {
		d.Asked[q.key] = q.method
	}
	srv := cc.ss.srv
	state, err := srv.state.seal(cc.binding(), &d)
	if err != nil {
		cc.ss.logger.Error("mcp: seal requestState", "err", err)
		return nil, false
	}
	n := len(state) + 80 + len(srv.modernTail)
	for _, q := range in.asked {
		n += len(q.key) + len(q.method) + len(q.params) + 32
	}
	b := make([]byte, 0, n)
	b = append(b, `{"resultType":"input_required","inputRequests":{`...)
	for i, q := range in.asked {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonenc.AppendString(b, q.key)
		b = append(b, `:{"method":"`...)
		b = append(b, q.method...)
		b = append(b, `","params":`...)
		b = append(b, q.params...)
		b = append(b, '}')
	}
	b = append(b, `},"requestState":"`...)
	b = append(b, state...)
	b = append(b, '"')
	// The modern tail, less its resultType: ,"_meta":{...}}
	return append(b, srv.modernTail[len(`,"resultType":"complete"`):]...), true
}
