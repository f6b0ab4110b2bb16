package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp/internal/wire"
)

// TestServerAnswersTheTable checks that the server has a handler for every
// request of the protocol a client sends, and a row for every handler: a
// method added to the table and not to the server (or the reverse) fails
// here.
func TestServerAnswersTheTable(t *testing.T) {
	handled := loadServerMethods()
	for _, m := range Methods() {
		if m.Extension != "" || m.Notification || m.Direction&ClientToServer == 0 {
			continue
		}
		if _, ok := handled[m.Name]; !ok && m.Name != MethodInitialize && m.Name != MethodPing {
			t.Errorf("the table has %s, which the server does not answer", m.Name)
		}
	}
	for name, sm := range handled {
		if sm.Method == nil {
			t.Errorf("the server answers %s, which the table does not have", name)
		}
	}
}

// TestClientAnswersTheTable checks that a client with every handler set
// answers every request of the protocol a server sends.
func TestClientAnswersTheTable(t *testing.T) {
	c := newClient(ClientOptions{
		OnElicit: func(context.Context, *ElicitParams) (*ElicitResult, error) {
			return &ElicitResult{Action: "decline"}, nil
		},
		OnSample: func(context.Context, *CreateMessageParams) (*CreateMessageResult, error) {
			return &CreateMessageResult{Role: "assistant", Content: TextContent("hi"), Model: "m"}, nil
		},
		Roots: func(context.Context) ([]Root, error) { return nil, nil },
	})
	defer c.serving.stop()
	for _, m := range Methods() {
		if m.Extension != "" || m.Notification || m.Direction&ServerToClient == 0 {
			continue
		}
		var env wire.Envelope
		env.Scan([]byte(`{"jsonrpc":"2.0","id":1,"method":"` + m.Name + `","params":{}}`))
		reply := c.answerServerRequest(&env)
		var r struct {
			Error *runtime.Error `json:"error"`
		}
		if err := json.Unmarshal(reply, &r); err != nil {
			t.Fatalf("%s: reply %s: %v", m.Name, reply, err)
		}
		if r.Error != nil {
			var rpcErr *runtime.Error
			if errors.As(r.Error, &rpcErr) && rpcErr.Code == runtime.CodeMethodNotFound {
				t.Errorf("the table has %s, which the client does not answer: %s", m.Name, reply)
			}
		}
	}
}
