package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/internal/wire"
)

// A server asks the client for input (elicitation, sampling, roots) in two
// ways. A legacy session sends a JSON-RPC request mid-call, answered by
// answerServerRequest on a goroutine of its own. In 2026-07-28 the call's
// result is input_required; callWithInput answers every input request and
// retries the call with a new id, the same params, the answers
// (inputResponses) and the server's opaque requestState. Both end in
// answerInput, which runs the Options handler.

// maxInputRounds bounds the 2026-07-28 loop: how many input_required results
// one call answers before it gives up on a server that keeps asking.
const maxInputRounds = 10

// defaultCapabilities declares the client features opts has handlers for.
func defaultCapabilities(opts *Options) json.RawMessage {
	b := []byte{'{'}
	add := func(member string) {
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = append(b, member...)
	}
	if opts.OnElicit != nil {
		add(`"elicitation":{"form":{},"url":{}}`)
	}
	if opts.Roots != nil {
		add(`"roots":{"listChanged":false}`)
	}
	if opts.OnSample != nil && opts.SampleTools {
		add(`"sampling":{"tools":{}}`)
	} else if opts.OnSample != nil {
		add(`"sampling":{}`)
	}
	return append(b, '}')
}

// answerInput runs the handler for one request the server made of the client
// and returns its encoded result. With no handler for method the error is a
// Method not found *runtime.Error.
func (c *Client) answerInput(ctx context.Context, method string, params []byte) ([]byte, error) {
	switch {
	case method == mcp.MethodElicitationCreate && c.opts.OnElicit != nil:
		p := new(mcp.ElicitParams)
		if err := decodeInputParams(method, params, p); err != nil {
			return nil, err
		}
		res, err := c.opts.OnElicit(ctx, p)
		if err != nil {
			return nil, err
		}
		if res == nil {
			return nil, errors.New("mcp: OnElicit returned no result")
		}
		switch res.Action {
		case "accept", "decline", "cancel":
		default:
			return nil, fmt.Errorf("mcp: OnElicit returned action %q (want accept, decline or cancel)", res.Action)
		}
		if res.Action == "accept" && (p.Mode == "" || p.Mode == "form") {
			r := *res
			r.Content = withElicitDefaults(p.RequestedSchema, r.Content)
			res = &r
		}
		return json.Marshal(res)
	case method == mcp.MethodSamplingCreateMessage && c.opts.OnSample != nil:
		p := new(mcp.CreateMessageParams)
		if err := decodeInputParams(method, params, p); err != nil {
			return nil, err
		}
		if p.UsesTools() && !c.opts.SampleTools {
			return nil, runtime.InvalidParams("sampling with tools: the client did not declare sampling.tools")
		}
		res, err := c.opts.OnSample(ctx, p)
		if err != nil {
			return nil, err
		}
		if res == nil {
			return nil, errors.New("mcp: OnSample returned no result")
		}
		return json.Marshal(res)
	case method == mcp.MethodRootsList && c.opts.Roots != nil:
		roots, err := c.opts.Roots(ctx)
		if err != nil {
			return nil, err
		}
		if roots == nil {
			roots = []mcp.Root{} // the member is required
		}
		return json.Marshal(struct {
			Roots []mcp.Root `json:"roots"`
		}{roots})
	}
	return nil, runtime.ErrMethodNotFound(method)
}

// decodeInputParams decodes the params of a server's request into p; absent
// params leave p zero.
func decodeInputParams(method string, params []byte, p any) error {
	if clientIsNull(params) {
		return nil
	}
	if err := json.Unmarshal(params, p); err != nil {
		return runtime.InvalidParams("invalid params of %s: %v", method, err)
	}
	return nil
}

// serverRequests tracks the legacy server's requests being answered, so
// notifications/cancelled and Close can stop their handlers.
type serverRequests struct {
	mu      sync.Mutex
	base    context.Context
	stop    context.CancelFunc
	cancels map[string]context.CancelFunc
}

func (r *serverRequests) init() {
	r.base, r.stop = context.WithCancel(context.Background())
	r.cancels = make(map[string]context.CancelFunc)
}

// begin returns the context for answering request id and the function to
// call when done.
func (r *serverRequests) begin(id []byte) (context.Context, func()) {
	ctx, cancel := context.WithCancel(r.base)
	key := string(id)
	r.mu.Lock()
	r.cancels[key] = cancel
	r.mu.Unlock()
	return ctx, func() {
		r.mu.Lock()
		delete(r.cancels, key)
		r.mu.Unlock()
		cancel()
	}
}

// cancel stops the handler answering request id, if any.
func (r *serverRequests) cancel(id []byte) {
	r.mu.Lock()
	f := r.cancels[string(id)]
	r.mu.Unlock()
	if f != nil {
		f()
	}
}

// answerServerRequest runs the handler for a request the server sent (legacy
// sessions) and returns the response to send: ping gets {}, a method with no
// handler Method not found, a handler's error a JSON-RPC error (its own code
// when it is a *runtime.Error). It blocks while the handler runs, so
// transports call it on a goroutine of its own. It returns nil when the
// server cancelled the request meanwhile: no response is due then.
func (c *Client) answerServerRequest(env *wire.Envelope) []byte {
	b := append([]byte(`{"jsonrpc":"2.0","id":`), env.ID...)
	var method string
	if err := json.Unmarshal(env.Method, &method); err != nil {
		return append(b, `,"error":{"code":-32600,"message":"Invalid Request"}}`...)
	}
	if method == mcp.MethodPing {
		return append(b, `,"result":{}}`...)
	}
	ctx, done := c.serving.begin(env.ID)
	defer done()
	res, err := c.answerInput(ctx, method, env.Params)
	if err == nil {
		b = append(b, `,"result":`...)
		b = append(b, res...)
		return append(b, '}')
	}
	if ctx.Err() != nil && c.serving.base.Err() == nil {
		c.logger.Debug("mcp: the server cancelled its request", "method", method)
		return nil
	}
	c.logger.Debug("mcp: refused a server request", "method", method, "err", err)
	var rpcErr *runtime.Error
	if !errors.As(err, &rpcErr) {
		rpcErr = runtime.NewError(runtime.CodeInternalError, err.Error())
	}
	eb, merr := json.Marshal(rpcErr)
	if merr != nil { // data that is not valid JSON
		eb, _ = json.Marshal(runtime.NewError(rpcErr.Code, rpcErr.Message))
	}
	b = append(b, `,"error":`...)
	b = append(b, eb...)
	return append(b, '}')
}

// inputRequest is one member of an input_required result's inputRequests.
type inputRequest struct {
	key    []byte // the raw key, escapes kept, echoed as it came
	Method string
	Params json.RawMessage
}

// inputRequired is what an input_required result asks for.
type inputRequired struct {
	requests []inputRequest
	state    []byte // the raw JSON string, echoed exactly; nil when absent
}

// parseInputRequired returns what result asks for when it is an
// input_required result, and nil otherwise; resultType is the raw
// resultType member (nil when absent), for the caller to check.
func parseInputRequired(result []byte) (ir *inputRequired, resultType []byte, err error) {
	o, ok := runtime.ScanObject(result)
	if !ok {
		return nil, nil, errors.New("the result is not an object")
	}
	var isInput bool
	var requests, state []byte
	for {
		key, val, ok := o.Next()
		if !ok {
			break
		}
		switch string(key) {
		case "resultType":
			resultType = val
			isInput = wire.StringIs(val, "input_required")
		case "inputRequests":
			requests = val
		case "requestState":
			state = val
		}
	}
	if o.Malformed() {
		return nil, nil, errors.New("the result is malformed")
	}
	if !isInput {
		return nil, resultType, nil
	}
	ir = new(inputRequired)
	if !clientIsNull(state) {
		var s string
		if state[0] != '"' || json.Unmarshal(state, &s) != nil {
			return nil, nil, errors.New("input_required: requestState is not a string")
		}
		ir.state = state
	}
	if !clientIsNull(requests) {
		ro, ok := runtime.ScanObject(requests)
		if !ok {
			return nil, nil, errors.New("input_required: inputRequests is not an object")
		}
		for {
			key, val, ok := ro.Next()
			if !ok {
				break
			}
			req := inputRequest{key: key}
			if err := json.Unmarshal(val, &req); err != nil || req.Method == "" {
				return nil, nil, fmt.Errorf("input_required: inputRequests[%s] is not a {method, params} object", key)
			}
			ir.requests = append(ir.requests, req)
		}
		if ro.Malformed() {
			return nil, nil, errors.New("input_required: inputRequests is malformed")
		}
	}
	if len(ir.requests) == 0 && ir.state == nil {
		return nil, nil, errors.New("input_required with neither inputRequests nor requestState")
	}
	return ir, resultType, nil
}

// answerInputRequests runs the handler of every input request, in the order
// the server listed them, and returns the inputResponses object; nil when
// there were none.
func (c *Client) answerInputRequests(ctx context.Context, reqs []inputRequest) ([]byte, error) {
	if len(reqs) == 0 {
		return nil, nil
	}
	b := []byte{'{'}
	for i, req := range reqs {
		res, err := c.answerInput(ctx, req.Method, req.Params)
		if err != nil {
			var rpcErr *runtime.Error
			if errors.As(err, &rpcErr) && rpcErr.Code == runtime.CodeMethodNotFound {
				err = fmt.Errorf("no handler in Options for %s", req.Method)
			}
			return nil, fmt.Errorf("input request %q (%s): %w", req.key, req.Method, err)
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = append(b, req.key...)
		b = append(b, `":`...)
		b = append(b, res...)
	}
	return append(b, '}'), nil
}

// callWithInput sends method, whose params members write appends, and
// returns the final result. In 2026-07-28 it answers input_required results
// and retries, at most maxInputRounds times; errors name the call as method
// and target (a tool's or prompt's name, a resource's URI), joined only then.
// onProgress, when set, hears the progress of every round.
func (c *Client) callWithInput(ctx context.Context, method, target string, write func(cb *clientBuf) error, onProgress func(mcp.ProgressNotification)) ([]byte, error) {
	res, err := c.callWithInputOnce(ctx, method, target, write, onProgress)
	if err == nil {
		return res, nil
	}
	err = c.retried(ctx, method, target, err, func(ctx context.Context) error {
		res, err = c.callWithInputOnce(ctx, method, target, write, onProgress)
		return err
	})
	return res, err
}

// callWithInputOnce is one try of callWithInput.
func (c *Client) callWithInputOnce(ctx context.Context, method, target string, write func(cb *clientBuf) error, onProgress func(mcp.ProgressNotification)) ([]byte, error) {
	var responses, state []byte
	for round := 0; ; round++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		id := c.nextID.Add(1)
		cb := clientGetBuf()
		cb.begin(id, method)
		if err := write(cb); err != nil {
			cb.free()
			return nil, err
		}
		if responses != nil {
			cb.field("inputResponses")
			cb.b.Write(responses)
		}
		if state != nil {
			cb.field("requestState")
			cb.b.Write(state)
		}
		var token int64
		if onProgress != nil {
			token = id
		}
		r, err := c.roundTrip(ctx, id, cb, token, onProgress)
		if err != nil {
			return nil, err
		}
		if method == mcp.MethodToolsCall {
			if res, ok, err := c.followTask(ctx, target, r.result); ok {
				return res, err
			}
		}
		if !c.Modern() {
			return r.result, nil
		}
		ir, resultType, err := parseInputRequired(r.result)
		if err != nil {
			return nil, fmt.Errorf("mcp: %s %s: %w", method, target, err)
		}
		if ir == nil {
			// A final result: complete, or a resultType this client does
			// not know, which is an error for every caller alike.
			if resultType != nil && !wire.StringIs(resultType, "complete") {
				return nil, resultTypeError(method+" "+target, resultType)
			}
			return r.result, nil
		}
		if round == maxInputRounds {
			return nil, fmt.Errorf("mcp: %s %s: the server still answers input_required after %d rounds", method, target, maxInputRounds)
		}
		if responses, err = c.answerInputRequests(ctx, ir.requests); err != nil {
			return nil, fmt.Errorf("mcp: %s %s: %w", method, target, err)
		}
		state = ir.state
	}
}
