package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"runtime/debug"
	"strconv"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/internal/jsonenc"
	"github.com/rpcgen/rpcgen/runtime/mcp"
)

// maxCompletionValues is the most values a completion result may carry.
const maxCompletionValues = 100

// completeRequest are the members of completion/complete this server reads.
type completeRequest struct {
	ref      mcp.CompletionRef
	argument struct {
		Name  *string `json:"name"`
		Value *string `json:"value"`
	}
	context struct {
		Arguments map[string]string `json:"arguments"`
	}
}

func (cp *completeRequest) parse(p *reqParams) error {
	if p.ref == nil || !isObject(p.ref) || json.Unmarshal(p.ref, &cp.ref) != nil {
		return runtime.InvalidParams(`"ref" must be an object: {"type":"ref/prompt","name":…} or {"type":"ref/resource","uri":…}`)
	}
	if p.argument == nil || !isObject(p.argument) || json.Unmarshal(p.argument, &cp.argument) != nil ||
		cp.argument.Name == nil || cp.argument.Value == nil {
		return runtime.InvalidParams(`"argument" must be an object with string members "name" and "value"`)
	}
	if p.context != nil && string(p.context) != "null" {
		if !isObject(p.context) || json.Unmarshal(p.context, &cp.context) != nil {
			return runtime.InvalidParams(`"context" must be an object whose "arguments" is an object of strings`)
		}
	}
	return nil
}

// complete runs a completion/complete. cc comes with the era's fields set.
func (ss *Session) complete(ctx context.Context, cc *callCtx, p *reqParams) (json.RawMessage, error) {
	r := ss.srv.reg.Load()
	var cp completeRequest
	if err := cp.parse(p); err != nil {
		return nil, err
	}
	h, err := r.completer(&cp)
	if err != nil {
		return nil, err
	}
	var c *mcp.Completion
	if h != nil {
		if err := ss.beginCall(ctx, cc, mcp.MethodCompletionComplete, p); err != nil {
			return nil, err
		}
		req := &CompleteRequest{Argument: *cp.argument.Name, Value: *cp.argument.Value, Context: cp.context.Arguments}
		c, err = ss.runComplete(cc, h, req)
		if cc.finish() {
			return nil, runtime.ErrNoResponse
		}
		// completion/complete may not answer input_required: a handler that
		// asked for input fails.
		if err != nil {
			return nil, handlerError(err, cc.v)
		}
	}
	return ss.srv.encodeCompletion(c, cc.v), nil
}

// completer finds the completion handler of a ref and checks the argument
// it names; nil when there is nothing to complete with.
func (r *registry) completer(cp *completeRequest) (CompletionHandler, error) {
	arg := *cp.argument.Name
	switch cp.ref.Type {
	case "ref/prompt":
		pr := r.prompt(cp.ref.Name)
		if pr == nil {
			return nil, runtime.InvalidParams("unknown prompt %q", cp.ref.Name)
		}
		for _, a := range pr.Arguments {
			if a.Name == arg {
				return pr.Complete, nil
			}
		}
		return nil, runtime.InvalidParams("prompt %q has no argument %q", cp.ref.Name, arg)
	case "ref/resource":
		if t := r.template(cp.ref.URI); t != nil {
			for _, v := range t.tmpl.vars {
				if v == arg {
					return t.Complete, nil
				}
			}
			return nil, runtime.InvalidParams("resource template %q has no variable %q", cp.ref.URI, arg)
		}
		if r.resource(cp.ref.URI) != nil {
			return nil, nil // a fixed resource has nothing to complete
		}
		return nil, runtime.InvalidParams("unknown resource %q", cp.ref.URI)
	}
	return nil, runtime.InvalidParams(`unknown ref type %q: want "ref/prompt" or "ref/resource"`, cp.ref.Type)
}

// runComplete calls a completion handler, turning a panic into an internal
// error.
func (ss *Session) runComplete(cc *callCtx, h CompletionHandler, req *CompleteRequest) (c *mcp.Completion, err error) {
	defer func() {
		if v := recover(); v != nil {
			ss.logger.Error("mcp: completion handler panicked", "argument", req.Argument, "panic", v, "stack", string(debug.Stack()))
			c, err = nil, errors.New("internal error completing "+req.Argument)
		}
	}()
	return h(cc, req)
}

// encodeCompletion encodes a CompleteResult: at most 100 values; when there
// were more, hasMore is set and total counts them all (or keeps the
// handler's, when larger). A nil c has no values.
func (s *Server) encodeCompletion(c *mcp.Completion, v ver) []byte {
	var values []string
	total, hasMore := 0, false
	if c != nil {
		values, total, hasMore = c.Values, c.Total, c.HasMore
	}
	if len(values) > maxCompletionValues {
		total = max(total, len(values))
		values, hasMore = values[:maxCompletionValues], true
	}
	b := make([]byte, 0, 64+16*len(values)+len(s.modernTail))
	b = append(b, `{"completion":{"values":[`...)
	for i, val := range values {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonenc.AppendString(b, val)
	}
	b = append(b, ']')
	if total > 0 {
		b = append(b, `,"total":`...)
		b = strconv.AppendInt(b, int64(total), 10)
	}
	if hasMore {
		b = append(b, `,"hasMore":true`...)
	}
	b = append(b, '}')
	return s.endResult(b, v)
}
