package mcpserver

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/internal/jsonenc"
	"github.com/rpcgen/rpcgen/runtime/mcp"
)

// listenStream is one subscriptions/listen stream.
type listenStream struct {
	id                        []byte // the listen request's raw JSON id
	tools, prompts, resources bool   // the list_changed notifications honoured
	uris                      map[string]bool

	mu     sync.Mutex // held while sending
	done   bool       // the listen returned: send nothing more
	notify func([]byte)
	conn   *runtime.Conn
	logger *slog.Logger
}

// send sends a notification of the stream: params are its _meta and then
// members (each preceded by a comma).
func (l *listenStream) send(method string, members []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sendLocked(method, members)
}

func (l *listenStream) sendLocked(method string, members []byte) {
	if l.done {
		return
	}
	params := make([]byte, 0, 64+len(l.id)+len(members))
	params = append(params, `{"_meta":{"`+metaSubscriptionID+`":`...)
	params = append(params, l.id...)
	params = append(params, '}')
	params = append(append(params, members...), '}')
	switch {
	case l.notify != nil:
		l.notify(notification(method, params))
	case l.conn != nil:
		if err := l.conn.Notify(context.Background(), method, json.RawMessage(params)); err != nil {
			l.logger.Debug("mcp: send notification", "method", method, "err", err)
		}
	}
}

// listenFilter is the SubscriptionFilter of a subscriptions/listen.
type listenFilter struct {
	ToolsListChanged      bool     `json:"toolsListChanged"`
	PromptsListChanged    bool     `json:"promptsListChanged"`
	ResourcesListChanged  bool     `json:"resourcesListChanged"`
	ResourceSubscriptions []string `json:"resourceSubscriptions"`
}

// listen serves a subscriptions/listen (2026-07-28): it acknowledges with
// the notifications it honours, sends them until the request ends, and then
// answers nothing (the client cancelled or went away) or, after
// EndSubscriptions, the complete result. caps are the client's
// capabilities on the request: a ListenSource's key needs its extension.
func (ss *Session) listen(ctx context.Context, req *runtime.Request, p *reqParams, caps []byte) (json.RawMessage, error) {
	if p.notifications == nil {
		return nil, runtime.InvalidParams(`missing "notifications"`)
	}
	var f listenFilter
	if !isObject(p.notifications) || json.Unmarshal(p.notifications, &f) != nil {
		return nil, runtime.InvalidParams(`"notifications" must be a SubscriptionFilter object`)
	}
	srv := ss.srv
	asked, err := srv.sourcesAsked(p.notifications, caps)
	if err != nil {
		return nil, err
	}
	id := []byte(req.ID.String())
	select {
	case <-srv.hub.ended:
		return srv.listenEnded(id), nil
	default:
	}
	r := srv.reg.Load()
	l := &listenStream{
		id:        id,
		tools:     f.ToolsListChanged,
		prompts:   f.PromptsListChanged && r.kinds&kindPrompts != 0,
		resources: f.ResourcesListChanged && r.kinds&kindResources != 0,
		logger:    ss.logger,
	}
	honoured := l.subscribeURIs(r, f.ResourceSubscriptions)
	if hc, ok := ctx.Value(handleKey{}).(*handleCtx); ok {
		l.notify = hc.notify
	} else {
		l.conn = runtime.ConnFromContext(ctx)
	}

	// Acknowledge before anything else can go out on the stream: the
	// sources' notifications wait for l.mu.
	lctx, stop := context.WithCancel(ctx)
	defer stop()
	l.mu.Lock()
	extra, err := l.startSources(lctx, asked)
	if err != nil {
		l.done = true
		l.mu.Unlock()
		return nil, err
	}
	ack := l.appendAck(nil, honoured, extra)
	srv.hub.mu.Lock()
	if srv.hub.listeners == nil {
		srv.hub.listeners = make(map[*listenStream]struct{})
	}
	srv.hub.listeners[l] = struct{}{}
	srv.hub.mu.Unlock()
	l.sendLocked(mcp.NotificationSubscriptionsAcknowledged, ack)
	l.mu.Unlock()

	var res json.RawMessage
	select {
	case <-ctx.Done():
		err = runtime.ErrNoResponse
	case <-srv.hub.ended:
		res = srv.listenEnded(id)
		if ctx.Err() != nil { // cancelled too: a cancelled request gets no response
			res, err = nil, runtime.ErrNoResponse
		}
	}
	l.mu.Lock()
	l.done = true
	l.mu.Unlock()
	srv.hub.mu.Lock()
	delete(srv.hub.listeners, l)
	srv.hub.mu.Unlock()
	return res, err
}

// listenEnded is the result that ends the listen stream whose request id is
// id.
func (s *Server) listenEnded(id []byte) json.RawMessage {
	b := make([]byte, 0, 96+len(id)+len(s.modernInfo))
	b = append(b, `{"resultType":"complete","_meta":{"`+metaSubscriptionID+`":`...)
	b = append(b, id...)
	b = append(b, `,"`+mcp.MetaServerInfo+`":`...)
	b = append(b, s.modernInfo...)
	return append(b, "}}"...)
}

// subscribeURIs sets l.uris to the resources of uris the server has, cleaned,
// and returns them in order: the subscriptions honoured.
func (l *listenStream) subscribeURIs(r *registry, uris []string) []string {
	if r.kinds&kindResources == 0 {
		return nil
	}
	var honoured []string
	for _, u := range uris {
		if checkURI(u) != nil {
			continue
		}
		clean, err := cleanFileURI(u)
		if err != nil {
			continue
		}
		if _, _, ok := r.resolve(clean); ok && !l.uris[clean] {
			if l.uris == nil {
				l.uris = make(map[string]bool)
			}
			l.uris[clean] = true
			honoured = append(honoured, clean)
		}
	}
	return honoured
}

// appendAck appends the members of the acknowledgement after the _meta: the
// notifications l honours, the resource subscriptions honoured and the
// sources' members (extra, each preceded by a comma).
func (l *listenStream) appendAck(ack []byte, honoured []string, extra []byte) []byte {
	ack = append(ack, `,"notifications":{`...)
	n := len(ack)
	flag := func(on bool, name string) {
		if on {
			if len(ack) > n {
				ack = append(ack, ',')
			}
			ack = append(ack, `"`+name+`":true`...)
		}
	}
	flag(l.tools, "toolsListChanged")
	flag(l.prompts, "promptsListChanged")
	flag(l.resources, "resourcesListChanged")
	if len(honoured) > 0 {
		if len(ack) > n {
			ack = append(ack, ',')
		}
		ack = append(ack, `"resourceSubscriptions":[`...)
		for i, u := range honoured {
			if i > 0 {
				ack = append(ack, ',')
			}
			ack = jsonenc.AppendString(ack, u)
		}
		ack = append(ack, ']')
	}
	if len(extra) > 0 {
		if len(ack) == n {
			extra = extra[1:]
		}
		ack = append(ack, extra...)
	}
	return append(ack, '}')
}
