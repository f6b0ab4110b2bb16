package mcpserver

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/internal/askhook"
	"github.com/rpcgen/rpcgen/runtime/mcp/internal/wire"
)

// ErrInputRequired is what Elicit, Sample and ListRoots of package
// runtime/mcp/ask return in a 2026-07-28 call when the client has not
// answered the question yet. The
// handler should return (any result or error will do): the call then ends
// with an input_required result asking the client the question, and the
// client retries the call with the answer, running the handler again from
// the start, where the same question, asked in the same order, now returns
// the answer. A handler must therefore ask in the same order each time and
// do nothing it cannot repeat before its last question.
var ErrInputRequired = errors.New("mcp: input required from the client")

var (
	errCallReturned = errors.New("mcp: the handler has returned: cannot ask the client")
	errNoClient     = errors.New("mcp: no connection to the client to send a request on")
)

// Asking the client for input is package ask's: ask.Elicit, ask.Sample and
// ask.ListRoots find the handler's call in its context (askhook.CallKey) and
// call the methods below, which are exported only for that. Keeping the
// functions out of this package keeps the ciphers of a 2026-07-28
// requestState, which package ask brings, out of servers that never ask.

// Elicit is ask.Elicit, for the call cc; key names the question in
// 2026-07-28 ("" for the next positional key).
func (cc *callCtx) Elicit(key string, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	if p == nil {
		return nil, errors.New("mcp: Elicit: nil params")
	}
	mode := p.Mode
	if mode == "" {
		mode = "form"
	}
	params, err := cc.elicitParams(p, mode)
	if err != nil {
		return nil, err
	}
	raw, err := cc.request(mcp.MethodElicitationCreate, key, params)
	if err != nil {
		return nil, err
	}
	r := new(mcp.ElicitResult)
	if err := decodeElicitResult(raw, r); err != nil {
		return nil, err
	}
	return r, nil
}

// elicitParams checks an elicitation against the client's capabilities and
// the protocol's rules and encodes it as revision cc.v has it.
func (cc *callCtx) elicitParams(p *mcp.ElicitParams, mode string) ([]byte, error) {
	if p.Message == "" {
		return nil, errors.New("mcp: Elicit: empty Message")
	}
	// The wire form: the fields this revision has, set below.
	w := mcp.ElicitParams{Message: p.Message, Meta: p.Meta}
	switch mode {
	case "form":
		schema, err := checkElicitSchema(p.RequestedSchema)
		if err != nil {
			return nil, err
		}
		w.RequestedSchema = schema
		if cc.v >= ver20251125 {
			w.Mode = "form"
		}
	case "url":
		u, err := url.Parse(p.URL)
		if err != nil || u.Scheme == "" || u.Host == "" {
			return nil, fmt.Errorf("mcp: Elicit: URL mode needs an absolute URL, have %q", p.URL)
		}
		w.Mode, w.URL = "url", p.URL
		if !cc.v.modern() {
			// 2025-11-25 requires an id; 2026-07-28 has none.
			if w.ElicitationID = p.ElicitationID; w.ElicitationID == "" {
				c := askhook.Installed()
				if c == nil {
					return nil, errNoCrypto
				}
				var id [16]byte
				_ = c.Rand(id[:])
				w.ElicitationID = hex.EncodeToString(id[:])
			}
		}
	default:
		return nil, fmt.Errorf("mcp: Elicit: unknown mode %q (want \"form\" or \"url\")", p.Mode)
	}
	if err := cc.requireElicitation(mode); err != nil {
		return nil, err
	}
	return json.Marshal(&w)
}

// requireElicitation returns nil when the client declared elicitation in
// mode, and the missing-capability error otherwise. The revisions before
// 2025-06-18 have no elicitation, and before 2025-11-25 no URL mode.
func (cc *callCtx) requireElicitation(mode string) error {
	caps, ok := capability(cc.caps, "elicitation")
	switch {
	case !ok || cc.v < ver20250618:
		return RequireClientCapability(context.Background(), "elicitation")
	case mode == "url" && cc.v < ver20251125:
		return missingElicitMode(mode)
	}
	_, hasForm := capability(caps, "form")
	_, hasURL := capability(caps, "url")
	if !hasForm && !hasURL {
		hasForm = true // elicitation: {} means form only
	}
	if mode == "form" && !hasForm || mode == "url" && !hasURL {
		return missingElicitMode(mode)
	}
	return nil
}

func missingElicitMode(mode string) error {
	return &runtime.Error{
		Code:    mcp.CodeMissingClientCapability,
		Message: "Server requires the elicitation capability with " + mode + " mode for this request",
		Data:    json.RawMessage(`{"requiredCapabilities":{"elicitation":{"` + mode + `":{}}}}`),
	}
}

// capability returns the member name of the capabilities object caps,
// when present and not null.
func capability(caps []byte, name string) ([]byte, bool) {
	val := wire.Member(caps, name)
	if val == nil || string(val) == "null" {
		return nil, false
	}
	return val, true
}

// checkElicitSchema checks that schema describes a flat object of primitive
// properties, as form mode requires, and returns it compacted; nil is the
// object with no properties.
func checkElicitSchema(schema json.RawMessage) (json.RawMessage, error) {
	if len(schema) == 0 {
		return json.RawMessage(`{"type":"object","properties":{}}`), nil
	}
	var s struct {
		Type       string                     `json:"type"`
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(schema, &s); err != nil {
		return nil, fmt.Errorf("mcp: Elicit: RequestedSchema: %v", err)
	}
	if s.Type != "object" {
		return nil, errors.New(`mcp: Elicit: RequestedSchema must have "type":"object"`)
	}
	for name, prop := range s.Properties {
		var p struct {
			Type       string          `json:"type"`
			Properties json.RawMessage `json:"properties"`
			Items      *struct {
				Type  string          `json:"type"`
				Enum  json.RawMessage `json:"enum"`
				AnyOf json.RawMessage `json:"anyOf"`
			} `json:"items"`
		}
		if err := json.Unmarshal(prop, &p); err != nil {
			return nil, fmt.Errorf("mcp: Elicit: RequestedSchema property %q: %v", name, err)
		}
		switch p.Type {
		case "string", "number", "integer", "boolean":
			if p.Properties == nil && p.Items == nil {
				continue
			}
		case "array": // a multi-select enum: items are string choices
			if p.Items != nil && (p.Items.Type == "string" && p.Items.Enum != nil || p.Items.AnyOf != nil) {
				continue
			}
		}
		return nil, fmt.Errorf("mcp: Elicit: RequestedSchema property %q is not a primitive (string, number, integer, boolean or enum): form mode asks for a flat object", name)
	}
	var b bytes.Buffer
	if err := json.Compact(&b, schema); err != nil {
		return nil, fmt.Errorf("mcp: Elicit: RequestedSchema: %v", err)
	}
	return b.Bytes(), nil
}

// Sample is ask.Sample, for the call cc, as Elicit.
func (cc *callCtx) Sample(key string, p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
	if p == nil || len(p.Messages) == 0 {
		return nil, errors.New("mcp: Sample: no messages")
	}
	if p.MaxTokens <= 0 {
		return nil, errors.New("mcp: Sample: MaxTokens must be positive")
	}
	if err := cc.require("sampling"); err != nil {
		return nil, err
	}
	if p.UsesTools() {
		if err := cc.requireSamplingTools(); err != nil {
			return nil, err
		}
	}
	params, err := json.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("mcp: Sample: %w", err)
	}
	raw, err := cc.request(mcp.MethodSamplingCreateMessage, key, params)
	if err != nil {
		return nil, err
	}
	r := new(mcp.CreateMessageResult)
	if err := decodeSampleResult(raw, r); err != nil {
		return nil, err
	}
	return r, nil
}

// ListRoots is ask.ListRoots, for the call cc, as Elicit.
func (cc *callCtx) ListRoots(key string) ([]mcp.Root, error) {
	if err := cc.require("roots"); err != nil {
		return nil, err
	}
	raw, err := cc.request(mcp.MethodRootsList, key, []byte(`{}`))
	if err != nil {
		return nil, err
	}
	var r listRootsResult
	if err := decodeRootsResult(raw, &r); err != nil {
		return nil, err
	}
	return r.Roots, nil
}

type listRootsResult struct {
	Roots []mcp.Root `json:"roots"`
}

// StateVerified is ask.StateVerified, for the call cc.
func (cc *callCtx) StateVerified() bool { return cc.verified }

// require returns nil when the client declared the capability name.
func (cc *callCtx) require(name string) error {
	if _, ok := capability(cc.caps, name); ok {
		return nil
	}
	return RequireClientCapability(context.Background(), name)
}

// request asks the client method with params and returns its result: a
// request to the client in a legacy session, a question of the call in
// 2026-07-28, under key.
func (cc *callCtx) request(method, key string, params []byte) (json.RawMessage, error) {
	if cc.task != nil {
		return cc.taskInput(method, key, params)
	}
	if cc.v.modern() {
		if !mrtrMethod(cc.method) {
			return nil, fmt.Errorf("mcp: cannot ask the client for input while serving %s in %s (only tools/call, prompts/get and resources/read may)", cc.method, mcp.Version20260728)
		}
		return cc.ask(method, key, params)
	}
	if cc.notify != nil {
		return cc.ss.out.call(cc, method, params)
	}
	if cc.conn == nil {
		return nil, errNoClient
	}
	cc.mu.Lock()
	done := cc.done
	cc.mu.Unlock()
	if done {
		return nil, errCallReturned
	}
	var res json.RawMessage
	if err := cc.conn.Call(cc, method, json.RawMessage(params), &res); err != nil {
		return nil, err
	}
	return res, checkAnswer(method, res)
}

// checkAnswer reports whether raw is a valid result of method.
func checkAnswer(method string, raw []byte) error {
	switch method {
	case mcp.MethodElicitationCreate:
		return decodeElicitResult(raw, new(mcp.ElicitResult))
	case mcp.MethodSamplingCreateMessage:
		return decodeSampleResult(raw, new(mcp.CreateMessageResult))
	case mcp.MethodRootsList:
		return decodeRootsResult(raw, new(listRootsResult))
	}
	return fmt.Errorf("unknown method %q", method)
}

func decodeElicitResult(raw []byte, r *mcp.ElicitResult) error {
	if !isObject(raw) || json.Unmarshal(raw, r) != nil {
		return errors.New("malformed elicitation/create result")
	}
	switch r.Action {
	case "accept", "decline", "cancel":
	default:
		return fmt.Errorf("elicitation/create result has action %q (want accept, decline or cancel)", r.Action)
	}
	if r.Content != nil && string(r.Content) != "null" && !isObject(r.Content) {
		return errors.New(`elicitation/create result: "content" must be an object`)
	}
	return nil
}

func decodeSampleResult(raw []byte, r *mcp.CreateMessageResult) error {
	if !isObject(raw) || json.Unmarshal(raw, r) != nil {
		return errors.New("malformed sampling/createMessage result")
	}
	if r.Role != "user" && r.Role != "assistant" || r.Content.Type == "" {
		return errors.New("sampling/createMessage result needs a role and a content block")
	}
	for _, c := range r.Blocks() {
		if c.Type == mcp.ContentToolUse && (c.ID == "" || c.Name == "" || !isObject(c.Input)) {
			return errors.New("sampling/createMessage result: a tool_use block needs an id, a name and an input object")
		}
	}
	return nil
}

// requireSamplingTools: sampling with tools (tools, toolChoice, tool use and
// result blocks) needs 2025-11-25 and the client's sampling.tools.
func (cc *callCtx) requireSamplingTools() error {
	caps, _ := capability(cc.caps, "sampling")
	if _, ok := capability(caps, "tools"); ok && cc.v >= ver20251125 {
		return nil
	}
	return &runtime.Error{
		Code:    mcp.CodeMissingClientCapability,
		Message: "Server requires the sampling capability with tools for this request",
		Data:    json.RawMessage(`{"requiredCapabilities":{"sampling":{"tools":{}}}}`),
	}
}

func decodeRootsResult(raw []byte, r *listRootsResult) error {
	if !isObject(raw) || json.Unmarshal(raw, r) != nil {
		return errors.New("malformed roots/list result")
	}
	return nil
}
