package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/internal/wire"
)

// TestClientAnswersTheTable checks that a client with every handler set
// answers every request of the protocol a server sends.
func TestClientAnswersTheTable(t *testing.T) {
	c := newClient(Options{
		OnElicit: func(context.Context, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "decline"}, nil
		},
		OnSample: func(context.Context, *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
			return &mcp.CreateMessageResult{Role: "assistant", Content: mcp.TextContent("hi"), Model: "m"}, nil
		},
		Roots: func(context.Context) ([]mcp.Root, error) { return nil, nil },
	})
	defer c.serving.stop()
	for _, m := range mcp.Methods() {
		if m.Extension != "" || m.Notification || m.Direction&mcp.ServerToClient == 0 {
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
