// Package ask lets an MCP tool, prompt or resource handler ask the client for
// input: information from the user (Elicit), a message from the client's model
// (Sample) or the client's roots (ListRoots). The handler's context says how:
// in a legacy session (2024-11-05 to 2025-11-25) the request goes to the client
// at once and the call waits for its answer; in 2026-07-28 the call ends with
// an input_required result carrying the question and a requestState sealed with
// AES-GCM, and the client retries with the answer (see mcpserver.ErrInputRequired).
//
// It is a package of its own so that the ciphers of that requestState come
// only with it: importing it installs them in package mcpserver, and a server that
// never asks the client for anything (most) neither links nor initialises any
// cryptography, which saves a good part of a stdio server's cold start. A
// server whose handlers do not import it never ends a call with
// input_required, and every requestState it is sent fails to open.
package ask

import (
	"context"
	"errors"

	"github.com/rpcgen/rpcgen/runtime/mcp"
	_ "github.com/rpcgen/rpcgen/runtime/mcp/internal/askcrypto" // installs the ciphers
	"github.com/rpcgen/rpcgen/runtime/mcp/internal/askhook"
)

var errNoCall = errors.New("ask: not in an MCP handler's context: cannot ask the client")

// call is what package mcpserver keeps in a handler's context under askhook.CallKey.
type call interface {
	Elicit(key string, p *mcp.ElicitParams) (*mcp.ElicitResult, error)
	Sample(key string, p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error)
	ListRoots(key string) ([]mcp.Root, error)
	StateVerified() bool
}

// An Option changes how a question is asked.
type Option func(*options)

type options struct{ key string }

// Key names the question in 2026-07-28: the key of its entry in the call's
// inputRequests, under which the client's retry answers it (inputResponses).
// Without it the key is the method and the question's position in the
// handler ("elicitation/create#0", "sampling/createMessage#1", ...). A
// handler names a question when its client, or the protocol around it,
// expects a name; keys must be unique within one call. Legacy sessions have
// no keys, and ignore it.
func Key(key string) Option { return func(o *options) { o.key = key } }

func keyOf(opts []Option) string {
	var o options
	for _, f := range opts {
		f(&o)
	}
	return o.key
}

// StateVerified reports whether ctx, a handler's context, is a 2026-07-28
// retry that came with a requestState this server issued for the same
// method, params and principal, unexpired and untampered; the answers of the
// earlier rounds came with it. (A retry whose state does not verify never
// reaches the handler: it is refused with -32602.) It is false in legacy
// sessions and on a call's first round.
func StateVerified(ctx context.Context) bool {
	c := callFrom(ctx)
	return c != nil && c.StateVerified()
}

func callFrom(ctx context.Context) call {
	c, _ := ctx.Value(askhook.CallKey{}).(call)
	return c
}

// Elicit asks the user for information through the client
// (elicitation/create), ctx being a handler's context. Form mode (Mode "" or
// "form") asks for the flat object p.RequestedSchema describes, whose
// properties must be primitives (string, number, integer, boolean, or enums);
// nil asks for nothing but a confirmation. URL mode (Mode "url") sends the user
// to p.URL, for anything sensitive, which form mode must never ask for. The
// client must have declared the elicitation capability for the mode
// (`elicitation: {}` means form only), else the error is a *runtime.Error
// with mcp.CodeMissingClientCapability, which a handler returns as it is. In a
// legacy session the request goes to the client at once; in 2026-07-28 see
// mcpserver.ErrInputRequired.
func Elicit(ctx context.Context, p *mcp.ElicitParams, opts ...Option) (*mcp.ElicitResult, error) {
	c := callFrom(ctx)
	if c == nil {
		return nil, errNoCall
	}
	return c.Elicit(keyOf(opts), p)
}

// Sample asks the client's model for a message (sampling/createMessage), ctx
// being a handler's context. The client must have declared the sampling
// capability, else the error is a *runtime.Error with
// mcp.CodeMissingClientCapability. In a legacy session the request goes to the
// client at once; in 2026-07-28 see mcpserver.ErrInputRequired.
func Sample(ctx context.Context, p *mcp.CreateMessageParams, opts ...Option) (*mcp.CreateMessageResult, error) {
	c := callFrom(ctx)
	if c == nil {
		return nil, errNoCall
	}
	return c.Sample(keyOf(opts), p)
}

// ListRoots asks the client for its roots (roots/list), ctx being a handler's
// context. The client must have declared the roots capability, else the
// error is a *runtime.Error with mcp.CodeMissingClientCapability. In a legacy
// session the request goes to the client at once; in 2026-07-28 see
// mcpserver.ErrInputRequired.
func ListRoots(ctx context.Context, opts ...Option) ([]mcp.Root, error) {
	c := callFrom(ctx)
	if c == nil {
		return nil, errNoCall
	}
	return c.ListRoots(keyOf(opts))
}
