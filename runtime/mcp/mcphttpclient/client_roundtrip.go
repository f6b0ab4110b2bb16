package mcphttpclient

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/internal/httpwire"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
)

// RoundTrip implements mcpclient.Transport.
func (t *streamable) RoundTrip(ctx context.Context, id int64, msg []byte, incoming func([]byte)) ([]byte, error) {
	m := scanClientMessage(msg)
	reply, err := t.roundTrip(ctx, id, msg, &m, incoming)
	if err != nil || m.version == "" {
		return reply, err
	}
	switch m.method {
	case mcp.MethodToolsList:
		return t.learnTools(reply), nil
	case mcp.MethodToolsCall:
		if _, known := t.clientToolParams(m.name); !known && clientIsHeaderMismatch(reply) && t.listTools(ctx, id, m.name, m.meta) {
			return t.roundTrip(ctx, id, msg, &m, incoming)
		}
	}
	return reply, nil
}

// roundTrip sends request msg and returns its response.
func (t *streamable) roundTrip(ctx context.Context, id int64, msg []byte, m *clientMessage, incoming func([]byte)) ([]byte, error) {
	s, err := t.session()
	if err != nil {
		return nil, err
	}
	legacy := m.version == "" && s.legacy
	if legacy {
		awaitListen(ctx, s)
	}
	rctx, cancel, stop := t.bind(ctx)
	defer cancel()
	defer stop()
	body := &clientBody{msg: msg}
	defer body.detach()
	req := t.cfg.newRequest(rctx, http.MethodPost, t.u, body, len(msg))
	req.Header[httpwire.HdrAccept] = clientAcceptBoth
	clientSetHeaders(req.Header, m, s)
	if m.version != "" && m.method == mcp.MethodToolsCall {
		t.setParamHeaders(req.Header, m)
	}
	resp, err := t.cfg.do(req, m.method == mcp.MethodInitialize || m.method == mcp.MethodServerDiscover)
	if err != nil {
		err = clientClassify(rctx, err)
	} else {
		var reply []byte
		reply, err = t.response(rctx, id, m, s, legacy, resp, incoming)
		if err == nil {
			return reply, nil
		}
	}
	if cerr := ctx.Err(); cerr != nil {
		if legacy && !mcpclient.NoCancel(ctx) {
			t.cancel(id, cerr)
		}
		return nil, cerr
	}
	if t.isClosed() {
		return nil, runtime.ErrClosed
	}
	if errors.Is(err, ErrSessionExpired) {
		return nil, err
	}
	return nil, fmt.Errorf("mcphttp: %s: %w", m.method, err)
}

// clientLostStatus reports whether an HTTP status says the request may or
// may not have reached the server: a proxy's 502, 503 or 504.
func clientLostStatus(code int) bool {
	return code == http.StatusBadGateway || code == http.StatusServiceUnavailable || code == http.StatusGatewayTimeout
}

// clientClassify marks an error of net/http's for retries (see
// mcpclient.Options.Retry): a request whose connection could not be made
// was not sent; one that failed later may or may not have reached the
// server. Errors of the caller's context, and of the Authorizer, stay as
// they are.
func clientClassify(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return err
	}
	if op, ok := errors.AsType[*net.OpError](err); ok && op.Op == "dial" {
		return runtime.NotSent(err)
	}
	if _, ok := errors.AsType[*url.Error](err); ok {
		return fmt.Errorf("%w: %w", runtime.ErrConnectionLost, err)
	}
	return err
}

// clientStatus returns the status line text of resp, "405 Method Not
// Allowed" say.
func clientStatus(resp *http.Response) string {
	return strconv.Itoa(resp.StatusCode) + " " + http.StatusText(resp.StatusCode)
}

// response reads the answer to request id.
func (t *streamable) response(ctx context.Context, id int64, m *clientMessage, s clientSession, legacy bool, resp *http.Response, incoming func([]byte)) ([]byte, error) {
	initialize := m.method == mcp.MethodInitialize
	ct := resp.Header.Get(httpwire.HdrContentType)
	var reply []byte
	switch {
	case resp.StatusCode == http.StatusNotFound && legacy && s.id != nil:
		clientDiscard(resp)
		t.expire(s)
		return nil, clientExpired(m.method, false)
	case clientLostStatus(resp.StatusCode):
		body, _ := readClientBody(resp, clientMaxError)
		resp.Body.Close()
		return nil, fmt.Errorf("%w: HTTP %s%s", runtime.ErrConnectionLost, clientStatus(resp), clientErrorSuffix(body))
	case resp.StatusCode < 200 || resp.StatusCode > 299:
		body, err := readClientBody(resp, clientMaxError)
		resp.Body.Close()
		reply, ok := clientWithID(id, body)
		if err != nil || !ok {
			reply = clientErrorReply(id, clientStatus(resp))
		}
		if initialize && clientSSEHint(resp.StatusCode, reply) {
			t.setRefused()
		}
		return reply, nil
	case clientMediaType(ct, "text/event-stream"):
		var err error
		if reply, err = t.readStream(ctx, id, resp.Body, s, legacy, incoming); err != nil {
			return nil, err
		}
	case clientMediaType(ct, "application/json"):
		body, err := readClientBody(resp, clientMaxReply)
		resp.Body.Close()
		if err != nil {
			return nil, err
		}
		var env httpwire.Envelope
		if !env.Scan(body) || !env.IsResponse() {
			if initialize {
				t.setRefused()
			}
			return clientErrorReply(id, clientStatus(resp)+" with a body that is no JSON-RPC response"), nil
		}
		reply = body
	default:
		clientDiscard(resp)
		if initialize {
			t.setRefused()
		}
		return clientErrorReply(id, clientStatus(resp)+" with Content-Type "+strconv.Quote(ct)), nil
	}
	if initialize {
		t.initialized(reply, resp.Header.Get(httpwire.HdrSessionID))
	}
	return reply, nil
}

// clientSSEHint reports whether an initialize answered with status and the
// error response reply hints at an HTTP+SSE server: 400, 404 or 405 without
// an error only a 2026-07-28 server would send (spec: Streamable HTTP,
// Backward Compatibility).
func clientSSEHint(status int, reply []byte) bool {
	if status != http.StatusBadRequest && status != http.StatusNotFound && status != http.StatusMethodNotAllowed {
		return false
	}
	code, ok := httpwire.ReplyError(reply)
	if !ok {
		return true
	}
	switch code {
	case mcp.CodeHeaderMismatch, mcp.CodeMissingClientCapability, mcp.CodeUnsupportedProtocolVersion:
		return false
	case runtime.CodeMethodNotFound:
		return status != http.StatusNotFound
	}
	return true
}
