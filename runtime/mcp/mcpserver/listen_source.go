package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
)

// ListenSource adds an extension's notifications to subscriptions/listen
// streams (2026-07-28): a client names what it wants to hear under Key in
// the request's notifications filter, the acknowledgement says what the
// server agreed to, and the notifications go out on the stream. The Tasks
// extension's status notifications (notifications/tasks, filter member
// "taskIds") are one; package runtime/mcp/tasks adds it.
type ListenSource struct {
	// Key is the member of the filter the source reads, such as "taskIds".
	Key string
	// Extension is the extension a client must declare on the listen
	// request to ask for Key; one that did not gets -32021
	// (mcp.ErrExtensionRequired) naming it. "" asks nothing.
	Extension string
	// Listen is called for a listen request whose filter holds Key (not
	// null), with its value. ctx is the request's (PrincipalFromContext
	// reads it) and ends with the stream. It returns the value the
	// acknowledgement carries under Key (nil leaves Key out: nothing
	// agreed), or an error the request is answered with (a *runtime.Error
	// as it is, such as runtime.InvalidParams). It must not call send
	// itself: goroutines it starts may, until ctx ends; what they send
	// goes out after the acknowledgement. send's params are a JSON object
	// (the server adds the stream's _meta to it).
	Listen func(ctx context.Context, value json.RawMessage, send func(method string, params json.RawMessage)) (ack json.RawMessage, err error)
}

// AddListenSource makes the server's subscriptions/listen streams carry
// src's notifications. It panics on a programmer error: an empty or taken
// Key (one of the protocol's own filter members included), or a nil
// Listen. Call it before serving.
func (s *Server) AddListenSource(src ListenSource) {
	switch src.Key {
	case "", "toolsListChanged", "promptsListChanged", "resourcesListChanged", "resourceSubscriptions":
		panic(fmt.Sprintf("mcpserver: AddListenSource: key %q is empty or the protocol's own", src.Key))
	}
	if src.Listen == nil {
		panic("mcpserver: AddListenSource " + src.Key + ": nil Listen")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, o := range s.listenSources {
		if o.Key == src.Key {
			panic("mcpserver: AddListenSource: key " + src.Key + " was already added")
		}
	}
	s.listenSources = append(s.listenSources[:len(s.listenSources):len(s.listenSources)], src)
}

// sourceListen is a source a listen request asked for, with its value.
type sourceListen struct {
	src   ListenSource
	value json.RawMessage
}

// sourcesAsked returns the sources whose key the filter holds, or the
// -32021 of the first whose extension the client did not declare.
func (s *Server) sourcesAsked(filter json.RawMessage, caps []byte) ([]sourceListen, error) {
	s.mu.Lock()
	srcs := s.listenSources
	s.mu.Unlock()
	if len(srcs) == 0 {
		return nil, nil
	}
	var members map[string]json.RawMessage
	if json.Unmarshal(filter, &members) != nil {
		return nil, nil // checked already as a SubscriptionFilter
	}
	var asked []sourceListen
	for _, src := range srcs {
		v, ok := members[src.Key]
		if !ok || string(v) == "null" {
			continue
		}
		if src.Extension != "" {
			if _, ok := mcp.ExtensionSettings(caps, src.Extension); !ok {
				return nil, mcp.ErrExtensionRequired(src.Extension)
			}
		}
		asked = append(asked, sourceListen{src: src, value: v})
	}
	return asked, nil
}

// startSources calls each asked source's Listen for the stream l and
// returns the acknowledgement's members for them (each preceded by a
// comma). l.mu is held: what the sources send waits for the
// acknowledgement.
func (l *listenStream) startSources(ctx context.Context, asked []sourceListen) ([]byte, error) {
	var ack []byte
	for _, a := range asked {
		send := func(method string, params json.RawMessage) {
			params = bytes.TrimSpace(params)
			if len(params) < 2 || params[0] != '{' {
				return
			}
			members := bytes.TrimSpace(params[1 : len(params)-1])
			if len(members) > 0 {
				members = append([]byte{','}, members...)
			}
			l.send(method, members)
		}
		v, err := a.src.Listen(ctx, a.value, send)
		if err != nil {
			return nil, err
		}
		if len(v) == 0 || string(v) == "null" {
			continue
		}
		if !json.Valid(v) {
			return nil, &runtime.Error{Code: runtime.CodeInternalError, Message: "the acknowledgement of " + a.src.Key + " is not valid JSON"}
		}
		k, _ := json.Marshal(a.src.Key)
		ack = append(append(append(append(ack, ','), k...), ':'), v...)
	}
	return ack, nil
}
