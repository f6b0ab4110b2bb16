package mcphttp

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/internal/rpctest"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/sse"
)

// wantUpdated checks that m is notifications/resources/updated for
// featureURI.
func wantUpdated(t *testing.T, m rpcMsg) {
	t.Helper()
	var p struct{ URI string }
	_ = json.Unmarshal(m.Params, &p)
	if m.Method != "notifications/resources/updated" || m.ID != nil || p.URI != featureURI {
		t.Fatalf("message %+v (params %s), want notifications/resources/updated for %s", m, m.Params, featureURI)
	}
}

// resources/updated goes on a legacy session's standalone stream: sent
// while no stream is open, it waits for the next GET; sent while one is
// open, it is written at once; it can be resumed from its event id.
func TestResourceUpdatedStandalone(t *testing.T) {
	for _, version := range []string{mcp.Version20250326, mcp.Version20251125} {
		t.Run(version, func(t *testing.T) {
			rpctest.CheckLeaks(t)
			hn, srv := newFeatureHarness(t, nil, false)
			sid := hn.initializeWith(version, `{}`)
			wantJSON(t, hn.post(`{"jsonrpc":"2.0","id":1,"method":"resources/subscribe","params":{"uri":"`+featureURI+`"}}`, "Mcp-Session-Id", sid),
				200, `{"jsonrpc":"2.0","id":1,"result":{}}`)

			srv.ResourceUpdated(featureURI) // no stream open yet
			r := hn.do(http.MethodGet, "", "Mcp-Session-Id", sid, "Accept", "text/event-stream")
			if r.resp == nil {
				t.Fatalf("GET: %d %s", r.status, r.body)
			}
			ch := streamEvents(t, r.resp.Body)
			m, first := nextMsg(t, ch, "the update sent before the GET")
			wantUpdated(t, m)
			if !first.HasID {
				t.Fatalf("event %+v has no id", first)
			}
			srv.ResourceUpdated(featureURI) // the stream is open
			m, _ = nextMsg(t, ch, "the update sent on the open stream")
			wantUpdated(t, m)

			// The client drops the stream and resumes it after the first
			// update: the second one is replayed.
			r.resp.Body.Close()
			var resumed reply
			// The server lets the stream go once it sees the client gone.
			eventually(t, hn.h, "the stream is free again", func() bool { return standaloneFree(hn.h, sid) })
			resumed = hn.do(http.MethodGet, "", "Mcp-Session-Id", sid, "Last-Event-ID", first.ID)
			if resumed.status != http.StatusOK {
				t.Fatalf("GET resuming the freed stream: %d %s", resumed.status, resumed.body)
			}
			ch = streamEvents(t, resumed.resp.Body)
			m, _ = nextMsg(t, ch, "the replayed update")
			wantUpdated(t, m)

			// Unsubscribed, the session hears no more; the stream ends with
			// the session.
			wantJSON(t, hn.post(`{"jsonrpc":"2.0","id":2,"method":"resources/unsubscribe","params":{"uri":"`+featureURI+`"}}`, "Mcp-Session-Id", sid),
				200, `{"jsonrpc":"2.0","id":2,"result":{}}`)
			srv.ResourceUpdated(featureURI)
			hn.endSession(sid)
			wantEnd(t, ch, "the standalone stream")
		})
	}
}

// elicitMeta is the _meta of a 2026-07-28 request declaring elicitation.
const elicitMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}`

// listen is a 2026-07-28 subscriptions/listen request for featureURI.
func listen(id int) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"subscriptions/listen","params":{"notifications":{"resourceSubscriptions":[%q]},%s}}`,
		id, featureURI, modernMeta)
}

// A 2026-07-28 listen stream: acknowledged at once, then the updates of
// the resource it subscribed to; the client ends one by closing it, and
// Shutdown ends the other with its complete result, without waiting for
// its deadline.
func TestModernListen(t *testing.T) {
	for _, h2 := range []bool{false, true} {
		t.Run(fmt.Sprintf("h2=%v", h2), func(t *testing.T) {
			rpctest.CheckLeaks(t)
			hn, srv := newFeatureHarness(t, nil, h2)
			open := func(id int) <-chan sse.Event {
				t.Helper()
				r := hn.post(listen(id), modernHeaders("subscriptions/listen", "")...)
				if r.resp == nil {
					t.Fatalf("subscriptions/listen: %d %s, want an event stream", r.status, r.body)
				}
				ch := streamEvents(t, r.resp.Body)
				ack, _ := nextMsg(t, ch, "the acknowledgement")
				if ack.Method != "notifications/subscriptions/acknowledged" || !strings.Contains(string(ack.Params), featureURI) {
					t.Fatalf("first message %+v (params %s), want the acknowledgement", ack, ack.Params)
				}
				return ch
			}

			// The client closes a listen stream: its call ends.
			ctx, cancel := context.WithCancel(context.Background())
			r := hn.doCtx(ctx, http.MethodPost, listen(1), modernHeaders("subscriptions/listen", "")...)
			if r.resp == nil {
				t.Fatalf("subscriptions/listen: %d %s", r.status, r.body)
			}
			if m, _ := nextMsg(t, streamEvents(t, r.resp.Body), "the acknowledgement"); m.Method != "notifications/subscriptions/acknowledged" {
				t.Fatalf("first message %+v", m)
			}
			cancel()
			eventually(t, hn.h, "the closed listen ends", func() bool { return hn.h.state.Load() == 0 })

			ch := open(2)
			srv.ResourceUpdated(featureURI)
			m, _ := nextMsg(t, ch, "the update")
			wantUpdated(t, m)
			if !strings.Contains(string(m.Params), `"io.modelcontextprotocol/subscriptionId":2`) {
				t.Fatalf("update %s without the subscription id", m.Params)
			}

			sctx, scancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer scancel()
			shut := make(chan error, 1)
			go func() { shut <- hn.h.Shutdown(sctx) }()
			end, _ := nextMsg(t, ch, "the listen's result")
			if string(end.ID) != "2" || end.Error != nil || !strings.Contains(string(end.Result), `"resultType":"complete"`) ||
				!strings.Contains(string(end.Result), `"io.modelcontextprotocol/subscriptionId":2`) {
				t.Fatalf("listen result %s %s (error %+v), want its complete result", end.ID, end.Result, end.Error)
			}
			wantEnd(t, ch, "the listen stream")
			if err := recv(t, shut, "Shutdown"); err != nil {
				t.Fatalf("Shutdown: %v, want nil (the listen ended at once)", err)
			}
		})
	}
}

// The token subject is the principal of a 2026-07-28 call: the state of an
// input_required result is bound to it, so another user cannot present it.
func TestPrincipalBindsState(t *testing.T) {
	rpctest.CheckLeaks(t)
	verify := func(_ context.Context, token string, _ *http.Request) (*TokenInfo, error) {
		if token == "alice" || token == "bob" {
			return &TokenInfo{Subject: token}, nil
		}
		return nil, ErrInvalidToken
	}
	hn, _ := newFeatureHarness(t, &Options{Auth: &Auth{Verify: verify, ResourceMetadataURL: "https://example.com/.well-known/oauth-protected-resource"}}, false)
	call := func(id int, extra, token string) rpcMsg {
		t.Helper()
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"ask","arguments":{},%s%s}}`, id, extra, elicitMeta)
		r := hn.post(body, modernHeaders("tools/call", "ask", "Authorization", "Bearer "+token)...)
		if r.resp != nil {
			t.Fatalf("tools/call: an event stream, want JSON")
		}
		return parseMsg(t, r.body)
	}
	first := call(1, "", "alice")
	var ir struct {
		ResultType    string                     `json:"resultType"`
		InputRequests map[string]json.RawMessage `json:"inputRequests"`
		RequestState  string                     `json:"requestState"`
	}
	if first.Error != nil || json.Unmarshal(first.Result, &ir) != nil || ir.ResultType != "input_required" ||
		len(ir.InputRequests) != 1 || ir.RequestState == "" {
		t.Fatalf("first round: %s (error %+v), want input_required", first.Result, first.Error)
	}
	var key string
	for k := range ir.InputRequests {
		key = k
	}
	retry := fmt.Sprintf(`"inputResponses":{%q:{"action":"accept","content":{"name":"Di"}}},"requestState":%q,`, key, ir.RequestState)
	if m := call(2, retry, "bob"); m.Error == nil || m.Error.Code != -32602 {
		t.Fatalf("another subject's retry: %s (error %+v), want -32602", m.Result, m.Error)
	}
	wantAsked(t, call(3, retry, "alice"), "3", "Di")
}
