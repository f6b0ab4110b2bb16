package tasks_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttpclient"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
	"github.com/rpcgen/rpcgen/runtime/mcp/tasks"
)

// listenMsg is a notification on a listen stream, as a test reads it.
type listenMsg struct {
	Method string `json:"method"`
	Params struct {
		Meta struct {
			SubscriptionID json.RawMessage `json:"io.modelcontextprotocol/subscriptionId"`
		} `json:"_meta"`
		Notifications struct {
			TaskIDs []string `json:"taskIds"`
		} `json:"notifications"`
		mcp.Task
	} `json:"params"`
}

// listen opens a subscriptions/listen with the filter members on f's
// session, on behalf of principal, and returns its notifications, its
// response (once it ends) and the function that ends it.
func (f *fixture) listen(principal, members, meta string) (<-chan listenMsg, <-chan reply, context.CancelFunc) {
	msgs, done := make(chan listenMsg, 64), make(chan reply, 1)
	ctx, cancel := context.WithCancel(mcpserver.WithPrincipal(context.Background(), principal))
	msg := `{"jsonrpc":"2.0","id":7,"method":"subscriptions/listen","params":{"notifications":{` + members + `},` + meta + `}}`
	go func() {
		raw := f.ss.Handle(ctx, []byte(msg), func(b []byte) {
			var m listenMsg
			if err := json.Unmarshal(b, &m); err != nil {
				f.t.Errorf("notification %s: %v", b, err)
			}
			msgs <- m
		})
		var r reply
		if raw != nil {
			_ = json.Unmarshal(raw, &r)
		}
		done <- r
	}()
	return msgs, done, cancel
}

// TestListenWire: a subscriptions/listen naming tasks is acknowledged with
// those the client may see, and carries each one's state, as tasks/get
// answers it, at once and at each change until it ends.
func TestListenWire(t *testing.T) {
	f := newFixture(t, nil)
	id := f.create("confirm")
	other := f.create("wait")

	// Not declaring the extension on the listen request: -32021.
	_, done, cancel := f.listen("", `"taskIds":["`+id+`"]`, metaPlain)
	if r := <-done; r.Error == nil || r.Error.Code != mcp.CodeMissingClientCapability {
		t.Errorf("listen for tasks without the extension: %+v", r)
	}
	cancel()
	// Not an array of strings: -32602.
	_, done, cancel = f.listen("", `"taskIds":"`+id+`"`, metaTasks)
	if r := <-done; r.Error == nil || r.Error.Code != runtime.CodeInvalidParams {
		t.Errorf("listen with a string for taskIds: %+v", r)
	}
	cancel()

	msgs, done, cancel := f.listen("", `"taskIds":["`+id+`","unknown","`+id+`"],"toolsListChanged":true`, metaTasks)
	ack := <-msgs
	if ack.Method != mcp.NotificationSubscriptionsAcknowledged || !slices.Equal(ack.Params.Notifications.TaskIDs, []string{id}) {
		t.Fatalf("acknowledgement %+v, want taskIds [%s]", ack, id)
	}
	var states []mcp.TaskStatus
	for m := range msgs {
		if m.Method != mcp.NotificationTasks || string(m.Params.Meta.SubscriptionID) != "7" || m.Params.TaskID != id {
			t.Fatalf("notification %+v: want notifications/tasks of %s on subscription 7", m, id)
		}
		if len(states) == 0 || states[len(states)-1] != m.Params.Status {
			states = append(states, m.Params.Status)
		}
		// Every notification is what tasks/get would answer: the
		// questions while input_required, the result once completed.
		switch m.Params.Status {
		case mcp.TaskInputRequired:
			if len(m.Params.InputRequests) == 0 {
				t.Fatalf("input_required without inputRequests: %+v", m.Params.Task)
			}
			answers := ""
			for k := range m.Params.InputRequests {
				answers += `,"` + k + `":{"action":"accept"}`
			}
			if r := f.req(mcp.MethodTasksUpdate, `"taskId":"`+id+`","inputResponses":{`+answers[1:]+`}`, metaTasks); r.Error != nil {
				t.Fatal(r.Error)
			}
		case mcp.TaskCompleted:
			if str(t, firstText(t, m.Params.Result)) != "accept,accept" {
				t.Errorf("completed with %s", m.Params.Result)
			}
		}
		if m.Params.Status.Terminal() {
			break
		}
	}
	if !slices.Contains(states, mcp.TaskInputRequired) || states[len(states)-1] != mcp.TaskCompleted {
		t.Errorf("statuses notified %v: want input_required on the way and completed last", states)
	}
	cancel()
	if r := <-done; r.Error != nil || r.Result != nil {
		t.Errorf("a listen cancelled by its client answered %+v", r)
	}

	// Another principal's task is not agreed to, nor is an ended one
	// followed beyond its last state.
	msgs, _, cancel = f.listen("mallory", `"taskIds":["`+other+`"]`, metaTasks)
	if ack := <-msgs; ack.Params.Notifications.TaskIDs == nil || len(ack.Params.Notifications.TaskIDs) != 0 {
		t.Errorf("another principal's task: acknowledged %+v, want taskIds []", ack.Params.Notifications)
	}
	cancel()
}

// firstText returns the text of a CallToolResult's first content block as
// JSON.
func firstText(t *testing.T, result json.RawMessage) json.RawMessage {
	t.Helper()
	var r struct {
		StructuredContent json.RawMessage `json:"structuredContent"`
		Content           []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	if err := json.Unmarshal(result, &r); err != nil || len(r.Content) == 0 {
		t.Fatalf("not a CallToolResult with content: %s", result)
	}
	if len(r.StructuredContent) > 0 {
		return r.StructuredContent
	}
	return json.RawMessage(r.Content[0].Text)
}

// dialers connect a client to a server over a real transport.
var dialers = map[string]func(t *testing.T, srv *mcpserver.Server, opts mcpclient.Options) *mcpclient.Client{
	"http": func(t *testing.T, srv *mcpserver.Server, opts mcpclient.Options) *mcpclient.Client {
		ts := httptest.NewServer(mcphttp.NewHandler(srv, nil))
		t.Cleanup(ts.Close)
		c, err := mcphttpclient.Connect(t.Context(), ts.URL, &mcphttpclient.Options{Transport: "streamable", MCP: opts})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	},
	// The server's stdio loop (Serve) on a newline-framed pipe.
	"stdio": func(t *testing.T, srv *mcpserver.Server, opts mcpclient.Options) *mcpclient.Client {
		client, server := runtime.Pipe()
		ctx, stop := context.WithCancel(context.Background())
		served := make(chan error, 1)
		go func() { served <- srv.Serve(ctx, server) }()
		c, err := mcpclient.Connect(t.Context(), client, opts)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			c.Close()
			stop()
			<-served
		})
		return c
	},
}

func clientOpts(version string) mcpclient.Options {
	return mcpclient.Options{
		ProtocolVersion: version,
		Extensions:      []mcp.Extension{{ID: mcp.TasksExtensionID}},
		OnElicit: func(context.Context, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept"}, nil
		},
	}
}

// TestClientListens: in 2026-07-28 the client follows a task through its
// status notifications. The server asks for a poll an hour apart, so a
// task with two questions and one that waits end only if the client hears
// their changes.
func TestClientListens(t *testing.T) {
	for name, dial := range dialers {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t, &tasks.Options{PollInterval: time.Hour})
			c := dial(t, f.srv, clientOpts(mcp.Version20260728))
			// A bound for a broken client, which would wait an hour.
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer cancel()
			var s string
			if err := c.CallTool(ctx, "confirm", nil, &s); err != nil || s != "accept,accept" {
				t.Fatalf("CallTool of a task answering two questions: %q, %v", s, err)
			}
			h, _, err := c.StartTool(ctx, "wait", nil)
			if err != nil || h == nil {
				t.Fatalf("StartTool: %v, %v", h, err)
			}
			f.await(h.ID(), func(mcp.TaskStatus) bool { return f.get(h.ID()).StatusMessage == "halfway" })
			close(f.release)
			if err := h.Decode(ctx, &s); err != nil || s != "released" {
				t.Errorf("Decode: %q, %v", s, err)
			}
			if h.Task().Status != mcp.TaskCompleted {
				t.Errorf("the handle's task: %+v", h.Task())
			}
		})
	}
}

// TestClientPollsLegacy: a legacy session has no subscriptions/listen; the
// client polls there, as often as the server asks.
func TestClientPollsLegacy(t *testing.T) {
	for name, dial := range dialers {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t, &tasks.Options{PollInterval: time.Millisecond})
			c := dial(t, f.srv, clientOpts(mcp.Version20251125))
			h, _, err := c.StartTool(t.Context(), "confirm", nil)
			if err != nil || h == nil {
				t.Fatalf("StartTool: %v, %v", h, err)
			}
			raw, err := h.Result(t.Context())
			if err != nil || str(t, firstText(t, raw)) != "accept,accept" {
				t.Fatalf("Result of a task answering two questions: %s, %v", raw, err)
			}
		})
	}
}
