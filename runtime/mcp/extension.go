package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/internal/jsonenc"
)

// Extensions (SEP-2133). A side declares the extensions it supports in the
// "extensions" member of its capabilities: a map from each extension's
// identifier to its settings object ({} for none). A server declares them in
// its initialize and server/discover results, a client in initialize's
// capabilities (legacy) or in every request's _meta clientCapabilities
// (2026-07-28). An extension's methods are rows of the method table whose
// Extension names it: a server answers them only when it declared the
// extension, and only to a client that declared it too; otherwise the
// request is refused with CodeMissingClientCapability (ErrExtensionRequired).

// Extension is an extension as a side declares it: its identifier and its
// settings.
type Extension struct {
	// ID is the extension's identifier, {vendor-prefix}/{extension-name}
	// (such as "io.modelcontextprotocol/skills" or "com.example/search"):
	// see CheckExtensionID.
	ID string
	// Settings is the extension's settings object, whose schema the
	// extension defines; nil declares the extension with no settings ({}).
	Settings json.RawMessage
}

// CheckExtensionID reports why id is not an extension identifier, or nil.
// An identifier follows the naming rules of _meta keys with the prefix
// mandatory: a prefix of dot-separated labels (each starting with a letter,
// ending with a letter or digit, with letters, digits and hyphens between),
// a slash, then a name that begins and ends with a letter or digit and has
// letters, digits, hyphens, underscores and dots between. The vendor prefix
// should be a reversed domain name its author controls (com.example/...);
// io.modelcontextprotocol/ is the official extensions'.
func CheckExtensionID(id string) error {
	prefix, name, ok := strings.Cut(id, "/")
	switch {
	case id == "":
		return errors.New("empty extension identifier")
	case !ok || prefix == "":
		return fmt.Errorf("extension identifier %q has no vendor prefix: want {vendor-prefix}/{extension-name}, such as com.example/search", id)
	case name == "":
		return fmt.Errorf("extension identifier %q has no name after its vendor prefix", id)
	}
	for label := range strings.SplitSeq(prefix, ".") {
		if !validLabel(label) {
			return fmt.Errorf("extension identifier %q: prefix label %q must start with a letter, end with a letter or digit and hold only letters, digits and hyphens", id, label)
		}
	}
	if !alnum(name[0]) || !alnum(name[len(name)-1]) {
		return fmt.Errorf("extension identifier %q: name %q must begin and end with a letter or digit", id, name)
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; !alnum(c) && c != '-' && c != '_' && c != '.' {
			return fmt.Errorf("extension identifier %q: name %q may hold only letters, digits, '-', '_' and '.'", id, name)
		}
	}
	return nil
}

func validLabel(l string) bool {
	if l == "" || !letter(l[0]) || !alnum(l[len(l)-1]) {
		return false
	}
	for i := 0; i < len(l); i++ {
		if c := l[i]; !alnum(c) && c != '-' {
			return false
		}
	}
	return true
}

func letter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func alnum(c byte) bool  { return letter(c) || '0' <= c && c <= '9' }

// CheckExtensionMethod reports why name may not be the name of a method an
// extension adds, or nil. The SEP leaves extension method names to each
// extension; the official ones name theirs {extension-name}/{verb}
// (skills/list, tasks/get, ui/initialize) and their notifications
// notifications/{extension-name}/{event}. rpcgen refuses only names that
// cannot work: an empty one, a method of the protocol itself (in any
// revision, whether or not it is in the table: see IsCoreMethod), a name
// JSON-RPC reserves (rpc.*), and a notification not under notifications/ or
// a request under it.
func CheckExtensionMethod(name string, notification bool) error {
	switch {
	case name == "":
		return errors.New("empty method name")
	case strings.TrimSpace(name) != name || strings.ContainsAny(name, " \t\r\n"):
		return fmt.Errorf("method name %q holds white space", name)
	case IsCoreMethod(name):
		return fmt.Errorf("method %q is a method of the protocol itself", name)
	case strings.HasPrefix(name, "rpc."):
		return fmt.Errorf("method %q: JSON-RPC reserves the names that begin with \"rpc.\"", name)
	case notification && !strings.HasPrefix(name, "notifications/"):
		return fmt.Errorf("notification %q must be named under notifications/", name)
	case !notification && strings.HasPrefix(name, "notifications/"):
		return fmt.Errorf("request %q may not be named under notifications/, where notifications are", name)
	}
	return nil
}

// IsCoreMethod reports whether name is a method or notification of the
// protocol itself, in any revision this package speaks.
func IsCoreMethod(name string) bool {
	for i := range coreMethods {
		if coreMethods[i].Name == name {
			return true
		}
	}
	return slices.Contains(retiredMethods, name)
}

// retiredMethods are notifications of the protocol that the table does not
// route (nothing here sends or serves them) but that an extension must not
// take either. (2025-11-25's experimental tasks/* methods are not here: the
// io.modelcontextprotocol/tasks extension took their names over.)
var retiredMethods = []string{
	"notifications/roots/list_changed",
	"notifications/elicitation/complete",
}

// ExtensionSettings returns the settings a capabilities object declares for
// the extension id, and whether it declares the extension: caps.extensions
// has id, and its value is an object. caps is a client's or a server's
// capabilities, as MCP sends them.
func ExtensionSettings(caps json.RawMessage, id string) (json.RawMessage, bool) {
	exts, ok := member(caps, "extensions")
	if !ok {
		return nil, false
	}
	v, ok := member(exts, id)
	if !ok || len(v) == 0 || v[0] != '{' {
		return nil, false
	}
	return v, true
}

// member returns the raw value of key in the JSON object obj.
func member(obj []byte, key string) ([]byte, bool) {
	o, ok := runtime.ScanObject(obj)
	if !ok {
		return nil, false
	}
	for {
		k, v, ok := o.Next()
		if !ok {
			return nil, false
		}
		if string(k) == key {
			return bytes.TrimSpace(v), true
		}
	}
}

// AppendExtensions appends the value of a capabilities object's
// "extensions" member declaring exts: {"id":settings,...}, {} for a nil
// Settings.
func AppendExtensions(b []byte, exts []Extension) []byte {
	b = append(b, '{')
	for i, e := range exts {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonenc.AppendString(b, e.ID)
		b = append(b, ':')
		if len(e.Settings) == 0 {
			b = append(b, '{', '}')
		} else {
			b = append(b, e.Settings...)
		}
	}
	return append(b, '}')
}

// CompactSettings checks that settings is a JSON object (or nil) and
// returns it compacted, for Extension.Settings.
func CompactSettings(id string, settings json.RawMessage) (json.RawMessage, error) {
	if len(bytes.TrimSpace(settings)) == 0 {
		return nil, nil
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, settings); err != nil {
		return nil, fmt.Errorf("settings of extension %q: %w", id, err)
	}
	if buf.Bytes()[0] != '{' {
		return nil, fmt.Errorf("settings of extension %q must be a JSON object", id)
	}
	return buf.Bytes(), nil
}

// ErrExtensionRequired returns the error a server answers a request that
// needs extensions the client did not declare: CodeMissingClientCapability
// (-32021), as 2026-07-28 refuses any request that needs a capability the
// client did not declare, with data.requiredCapabilities naming them:
// {"requiredCapabilities":{"extensions":{"com.example/search":{}}}}. The
// server answers it in the legacy revisions too, where the client declares
// its extensions in initialize.
func ErrExtensionRequired(ids ...string) *runtime.Error {
	exts := make([]Extension, len(ids))
	for i, id := range ids {
		exts[i].ID = id
	}
	data := append([]byte(`{"requiredCapabilities":{"extensions":`), AppendExtensions(nil, exts)...)
	return &runtime.Error{
		Code:    CodeMissingClientCapability,
		Message: "Server requires the " + strings.Join(ids, ", ") + " extension for this request",
		Data:    append(data, '}', '}'),
	}
}

// ExtensionCaller calls an extension's methods over MCP; *mcpclient.Client
// implements it (Client.CallExtension).
type ExtensionCaller interface {
	CallExtension(ctx context.Context, method string, params, result any) error
}

// ExtensionConn returns a runtime.Caller whose Call is c's CallExtension:
// the JSON-RPC client rpcgen generates for an interface marked
// //rpcgen:extension calls the extension's methods through it
// (New<Service>ExtensionClient). Its Notify fails: an extension's
// notifications are not sent this way.
func ExtensionConn(c ExtensionCaller) runtime.Caller { return extensionConn{c} }

type extensionConn struct{ c ExtensionCaller }

func (e extensionConn) Call(ctx context.Context, method string, params, result any) error {
	return e.c.CallExtension(ctx, method, params, result)
}

func (e extensionConn) Notify(_ context.Context, method string, _ any) error {
	return fmt.Errorf("mcp: %s: an extension's notification cannot be sent through ExtensionConn", method)
}

// ParamsWithoutMeta returns the params object params without its top-level
// _meta member (the 2026-07-28 client capabilities, the progress token,
// ...), for a handler that decodes the rest strictly; params itself when it
// has none.
func ParamsWithoutMeta(params json.RawMessage) json.RawMessage {
	o, ok := runtime.ScanObject(params)
	if !ok {
		return params
	}
	has := false
	for {
		k, _, ok := o.Next()
		if !ok {
			break
		}
		if string(k) == "_meta" {
			has = true
			break
		}
	}
	if !has {
		return params
	}
	o, _ = runtime.ScanObject(params)
	b := make([]byte, 0, len(params))
	b = append(b, '{')
	for {
		k, v, ok := o.Next()
		if !ok {
			break
		}
		if string(k) == "_meta" {
			continue
		}
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = jsonenc.AppendString(b, k)
		b = append(b, ':')
		b = append(b, v...)
	}
	return append(b, '}')
}
