package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
)

// ServerOptions configures a Server. The zero value is usable.
type Options struct {
	// Instructions tell a model how to use the server's tools; sent in the
	// initialize and server/discover results when not empty.
	Instructions string
	// Logger receives diagnostics: tool panics at Error, with their stack.
	// nil discards them, except that ServeStdio then logs to stderr.
	Logger *slog.Logger
	// PageSize is the number of tools per tools/list page; 0 lists all tools
	// on one page.
	PageSize int
	// ListTTL is how long a 2026-07-28 client may cache the tools/list and
	// server/discover results (ttlMs); 0, the default, means "immediately
	// stale". It is rounded down to whole milliseconds.
	ListTTL time.Duration
	// CacheScope is the cacheScope of those results: "public" (the default;
	// the tool list is the same for every caller) or "private". NewServer
	// panics on any other value.
	CacheScope string
	// MaxInflight bounds the requests one connection served by Serve or
	// ServeStdio handles at once (default 64); see runtime.Options.
	MaxInflight int
	// StateKeys are the keys that seal the requestState of a 2026-07-28
	// input_required result (AES-GCM; each 16, 24 or 32 bytes). The first
	// seals; every one opens, so a key can be rotated out without failing
	// the retries in flight. Servers behind a load balancer share them
	// (ParseStateKeys reads them from configuration; SetStateKeys rotates
	// them while the server runs); nil means one random key, made when the
	// first state is sealed, which no other replica has. Only
	// handlers that ask the client (package ask, which brings the ciphers)
	// make such a result.
	StateKeys [][]byte
	// StateTTL is how long a requestState stays valid (default 5 minutes).
	StateTTL time.Duration
	// Middleware wraps the handling of every request and notification of
	// every session, on every transport, the first outermost (see
	// runtime.Middleware; SessionFromContext finds the session, and
	// ObserveNotifications the notifications sent for the request). A panic
	// in one is an Internal error (-32603) for that request. None costs
	// nothing.
	Middleware []runtime.Middleware
	// ToolMiddleware wraps every tool call, the first outermost (see
	// ToolMiddleware).
	ToolMiddleware []ToolMiddleware
	// Bus, when set, carries the server's Changes (list_changed,
	// resources/updated, Log) to its replicas: the Servers of other
	// processes behind the same load balancer, subscribed to the same bus,
	// deliver them to their sessions and subscriptions/listen streams, and
	// this one delivers theirs. nil: this process only.
	Bus Bus
}

// Server serves tools over MCP in both eras: an initialize selects a legacy
// session (2024-11-05 to 2025-11-25) for a connection, and a request carrying
// the 2026-07-28 _meta is served statelessly. Its methods are safe for
// concurrent use.
type Server struct {
	info   mcp.Implementation
	opts   Options
	logger *slog.Logger

	mu  sync.Mutex // serializes AddTools, AddResources, AddResourceTemplates, AddPrompts
	reg atomic.Pointer[registry]

	// Pre-encoded pieces of results, per revision (the results that depend on
	// what is registered live in the registry).
	modernTail  []byte // ends every 2026-07-28 result
	modernInfo  []byte // the serverInfo object as 2026-07-28 writes it
	cacheFields []byte // ,"ttlMs":N,"cacheScope":"…"

	hub      hub                            // the sessions and listen streams notifications go to (subscribe.go)
	onChange atomic.Pointer[[]func(Change)] // OnChange's hooks (bus.go)

	state *stateSealer // seals 2026-07-28 requestState (seal.go)

	tools    ToolCallHandler // the tool middleware chain; nil without
	observed bool            // method middleware may observe notifications

	taskStarter   atomic.Pointer[TaskStarter] // SetTaskStarter (task.go)
	listenSources []ListenSource              // AddListenSource (listen_source.go), under mu
}

// encoded holds a registry's results as one revision sends them.
type encoded struct {
	once        sync.Once
	pages       [][]byte // tools/list
	resPages    [][]byte // resources/list
	tmplPages   [][]byte // resources/templates/list
	promptPages [][]byte // prompts/list
	// initialize (legacy revisions), or server/discover (2026-07-28).
	handshake []byte
}

// encodedFor returns r's results for revision v, encoding them on first use.
func (s *Server) encodedFor(r *registry, v ver) *encoded {
	e := r.enc[v]
	e.once.Do(func() {
		e.pages = s.encodePages(r.tools, v)
		if r.kinds&kindResources != 0 {
			e.resPages = s.encodeList("resources", resourcesCursor, len(r.resources), v, func(b []byte, i int) []byte {
				return appendResource(b, r.resources[i], v)
			})
			e.tmplPages = s.encodeList("resourceTemplates", templatesCursor, len(r.templates), v, func(b []byte, i int) []byte {
				return appendTemplate(b, r.templates[i], v)
			})
		}
		if r.kinds&kindPrompts != 0 {
			e.promptPages = s.encodeList("prompts", promptsCursor, len(r.prompts), v, func(b []byte, i int) []byte {
				return appendPrompt(b, r.prompts[i], v)
			})
		}
		e.handshake = s.encodeHandshake(r.kinds, r.exts, v)
	})
	return e
}

// kinds are the optional features a registry offers.
type kinds uint8

const (
	kindResources kinds = 1 << iota // resources or resource templates
	kindPrompts
)

// completions reports whether completion/complete is served: when there is
// a prompt or a resource to complete for.
func (k kinds) completions() bool { return k != 0 }

// New returns a server that identifies itself as info. opts may be nil.
// It panics when one of info's icons is not one mcp.CheckIcon accepts.
func New(info mcp.Implementation, opts *Options) *Server {
	checkDescriptor("server Implementation", info.Icons, nil)
	info.Icons = cloneIcons(info.Icons)
	s := &Server{info: info}
	if opts != nil {
		s.opts = *opts
	}
	switch s.opts.CacheScope {
	case "":
		s.opts.CacheScope = "public"
	case "public", "private":
	default:
		panic(fmt.Sprintf("mcp: CacheScope %q is neither \"public\" nor \"private\"", s.opts.CacheScope))
	}
	s.opts.ListTTL = max(s.opts.ListTTL, 0)
	s.opts.PageSize = max(s.opts.PageSize, 0)
	s.logger = s.opts.Logger
	if s.logger == nil {
		s.logger = slog.New(slog.DiscardHandler)
	}
	s.state = newStateSealer(s.opts.StateKeys, s.opts.StateTTL)
	s.tools = toolChain(s.opts.ToolMiddleware)
	s.observed = len(s.opts.Middleware) > 0
	s.hub.ended = make(chan struct{})
	s.encodeFixed()
	s.reg.Store(newRegistry())
	s.listenBus()
	return s
}

// AddTools adds tools to the server; tools/list lists them in the order they
// were added. It panics on a programmer error: a name that breaks the
// protocol's rule (1 to 128 of A-Z a-z 0-9 _ - .) or is already taken, a nil
// Handler, a schema that is not a JSON object, an icon mcp.CheckIcon
// refuses, or a Meta mcp.CheckMeta refuses (or holding the digest's key when
// Digest is set). A schema is compacted; a nil InputSchema stands for
// {"type":"object"}.
func (s *Server) AddTools(tools ...Tool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	old := s.reg.Load()
	batch := make(map[string]bool, len(tools))
	for _, t := range tools {
		if !validToolName(t.Name) {
			panic(fmt.Sprintf("mcp: invalid tool name %q: want 1 to 128 of A-Z a-z 0-9 _ - .", t.Name))
		}
		if batch[t.Name] || old.tool(t.Name) != nil {
			panic(fmt.Sprintf("mcp: duplicate tool name %q", t.Name))
		}
		if t.Handler == nil {
			panic(fmt.Sprintf("mcp: tool %q has no Handler", t.Name))
		}
		for _, sc := range t.Scopes {
			if !ValidScope(sc) {
				panic(fmt.Sprintf("mcp: tool %q: invalid scope %q (RFC 6749 §3.3: printable ASCII but space, \" and \\)", t.Name, sc))
			}
		}
		batch[t.Name] = true
	}
	added := make([]*Tool, len(tools))
	for i, t := range tools {
		t.InputSchema = compactSchema(t.Name, "InputSchema", t.InputSchema)
		if t.InputSchema == nil {
			t.InputSchema = json.RawMessage(`{"type":"object"}`)
		}
		t.OutputSchema = compactSchema(t.Name, "OutputSchema", t.OutputSchema)
		if t.Digest != "" {
			t.Meta = checkDescriptor("tool "+t.Name, t.Icons, t.Meta, mcp.MetaDigest)
		} else {
			t.Meta = checkDescriptor("tool "+t.Name, t.Icons, t.Meta)
		}
		t.Icons = cloneIcons(t.Icons)
		added[i] = &t
	}
	r := old.next()
	for _, t := range added {
		r.tools = appendKeyed(r.tools, r.toolIdx, t.Name, t)
	}
	s.reg.Store(r.finish())
	if len(tools) > 0 {
		s.listChanged(mcp.NotificationToolsListChanged, 0)
	}
}

func validToolName(name string) bool {
	if len(name) == 0 || len(name) > 128 {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

func compactSchema(tool, field string, schema json.RawMessage) json.RawMessage {
	if len(schema) == 0 {
		return nil
	}
	var b bytes.Buffer
	if err := json.Compact(&b, schema); err != nil || b.Len() == 0 || b.Bytes()[0] != '{' {
		panic(fmt.Sprintf("mcp: tool %q: %s is not a JSON object", tool, field))
	}
	return b.Bytes()
}

// NewSession returns a new session: the state of one client connection, for
// an in-process client (Handle) or a transport of your own that needs no
// SessionControl (one that does calls NewTransportSession).
func (s *Server) NewSession() *Session {
	ss := &Session{srv: s, logger: s.logger}
	ss.handler = ss.sessionHandler()
	ss.proc = runtime.NewProcessor(ss.options())
	return ss
}

// Serve serves one client over f, as one session, until the client hangs up
// or ctx ends; see runtime.Serve for what it returns.
func (s *Server) Serve(ctx context.Context, f runtime.Framer) error {
	ss := s.NewSession()
	defer ss.Close()
	return runtime.Serve(ctx, f, ss.options())
}

// ServeStdio serves one client over the process's stdin and stdout, one JSON
// message per line, as an MCP host expects of a server it starts. Nothing but
// protocol messages goes to stdout; diagnostics go to the Logger, which
// defaults to a text logger on stderr here.
func (s *Server) ServeStdio(ctx context.Context) error {
	ss := s.NewSession()
	defer ss.Close()
	if s.opts.Logger == nil {
		ss.logger = slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	opts := ss.options()
	opts.Framing = runtime.NewlineDelimited
	return runtime.ServeStdio(ctx, opts)
}

// Info returns the implementation the server identifies itself as: the
// serverInfo of its initialize and server/discover results. Package mcphttp
// serves a Server Card from it.
func (s *Server) Info() mcp.Implementation { return s.info }

// ToolAnnotations returns the Annotations of the tool named name (nil when
// it has none), and whether the server has such a tool. A task executor
// reads the idempotent hint to decide whether a task whose worker died
// may run again.
func (s *Server) ToolAnnotations(name string) (*mcp.ToolAnnotations, bool) {
	t := s.reg.Load().tool(name)
	if t == nil {
		return nil, false
	}
	return t.Annotations, true
}

// ToolInputSchema returns the input schema of the tool named name (compacted,
// as tools/list sends it), or nil when the server has no such tool. Package
// mcphttp reads its x-mcp-header annotations to check 2026-07-28 Mcp-Param-*
// headers.
func (s *Server) ToolInputSchema(name string) json.RawMessage {
	if t := s.reg.Load().tool(name); t != nil {
		return t.InputSchema
	}
	return nil
}
