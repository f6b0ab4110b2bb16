package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/rpcgen/rpcgen/runtime/mcp"
)

// ErrExtensionNotOffered is what CallExtension returns, wrapped, when the
// server did not declare the extension the method belongs to.
var ErrExtensionNotOffered = errors.New("mcp: the server does not declare the extension")

// ErrExtensionNotDeclared is what CallExtension returns, wrapped, when the
// client did not declare the extension the method belongs to
// (Options.Extensions): the server would refuse the request.
var ErrExtensionNotDeclared = errors.New("mcp: the client does not declare the extension")

// declareExtensions checks Options.Extensions and adds them to the
// capabilities object.
func (c *Client) declareExtensions() error {
	exts := c.opts.Extensions
	if len(exts) == 0 {
		return nil
	}
	if hasMember(c.opts.Capabilities, "extensions") {
		return errors.New(`mcp: Options.Capabilities has an "extensions" member and Options.Extensions declares extensions: declare them in one place`)
	}
	declared := make([]mcp.Extension, 0, len(exts))
	for _, e := range exts {
		if err := mcp.CheckExtensionID(e.ID); err != nil {
			return fmt.Errorf("mcp: Options.Extensions: %w", err)
		}
		if slices.ContainsFunc(declared, func(d mcp.Extension) bool { return d.ID == e.ID }) {
			return fmt.Errorf("mcp: Options.Extensions declares %q twice", e.ID)
		}
		settings, err := mcp.CompactSettings(e.ID, e.Settings)
		if err != nil {
			return fmt.Errorf("mcp: Options.Extensions: %w", err)
		}
		declared = append(declared, mcp.Extension{ID: e.ID, Settings: settings})
	}
	caps := c.opts.Capabilities
	b := make([]byte, 0, len(caps)+64)
	b = append(b, caps[:len(caps)-1]...)
	if len(caps) > 2 {
		b = append(b, ',')
	}
	b = append(b, `"extensions":`...)
	b = mcp.AppendExtensions(b, declared)
	c.opts.Capabilities = append(b, '}')
	c.opts.Extensions = declared
	return nil
}

// hasMember reports whether the JSON object obj has the member key.
func hasMember(obj []byte, key string) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(obj, &m) != nil {
		return false
	}
	_, ok := m[key]
	return ok
}

// ServerExtension returns the settings the server declared for the
// extension id in its capabilities (initialize or server/discover), and
// whether it declared it.
func (c *Client) ServerExtension(id string) (json.RawMessage, bool) {
	return mcp.ExtensionSettings(c.ServerCapabilities(), id)
}

// CallExtension sends a request of an extension's method, a row of the
// method table (mcp.RegisterMethod), with params (a value encoding as a JSON
// object, or nil) and decodes its result into result (when not nil), as the
// client's own calls do: the 2026-07-28 _meta, retries as the row's Retry
// allows, the server's errors as *runtime.Error. It fails without sending
// anything when the method is not an extension's, is not in the revision
// the client speaks, or its extension was not declared by the client
// (ErrExtensionNotDeclared) or by the server (ErrExtensionNotOffered).
func (c *Client) CallExtension(ctx context.Context, method string, params, result any) error {
	m := mcp.LookupMethod(method)
	switch {
	case m == nil || m.Extension == "":
		return fmt.Errorf("mcp: %q is not an extension's method (mcp.RegisterMethod adds them)", method)
	case m.Notification || m.Direction&mcp.ClientToServer == 0:
		return fmt.Errorf("mcp: %s is not a request a client sends", method)
	case !m.In(c.ProtocolVersion()):
		return fmt.Errorf("mcp: %s is not a method of revision %s", method, c.ProtocolVersion())
	}
	if _, ok := mcp.ExtensionSettings(c.opts.Capabilities, m.Extension); !ok {
		return fmt.Errorf("%w %s (Options.Extensions), which %s belongs to", ErrExtensionNotDeclared, m.Extension, method)
	}
	if _, ok := c.ServerExtension(m.Extension); !ok {
		return fmt.Errorf("%w %s, which %s belongs to", ErrExtensionNotOffered, m.Extension, method)
	}
	return c.call(ctx, method, params, result)
}
