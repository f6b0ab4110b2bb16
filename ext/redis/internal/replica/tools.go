package main

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/ask"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
)

// WatchedURI is the resource a client subscribes to; the touch tool
// changes it.
const WatchedURI = "test://watched"

// replica is one replica's server, its name and its Redis (for the lists
// that tell a client, on any replica, what a blocked call saw).
type replica struct {
	srv    *mcpserver.Server
	name   string
	rdb    *goredis.Client
	prefix string
}

type tagArgs struct {
	Tag  string `json:"tag"`
	N    int    `json:"n"`
	Text string `json:"text"`
}

func (r *replica) result(format string, args ...any) (json.RawMessage, error) {
	return fmt.Appendf(nil, `{"replica":%q,`+format+`}`, append([]any{r.name}, args...)...), nil
}

// tools: echo returns its arguments; count reports n progress
// notifications, then n; announce sends a log message to every session
// (Server.Log); block reports progress "started" and waits until its call
// is cancelled, then pushes its replica's name on the Redis list
// cancelled:TAG, which cancelled (on any replica) pops; ask elicits a
// name, sample asks for a message; grow adds a tool to this replica
// (a tag taken, or one that makes no tool name, fails the call); touch
// changes test://watched. Each
// result names the replica that ran it.
func (r *replica) tools() []mcpserver.Tool {
	obj := json.RawMessage(`{"type":"object"}`)
	tool := func(name, desc string, f func(ctx context.Context, a tagArgs) (json.RawMessage, error)) mcpserver.Tool {
		return mcpserver.Tool{Name: name, Description: desc, InputSchema: obj, Handler: func(ctx context.Context, raw json.RawMessage) (json.RawMessage, error) {
			var a tagArgs
			if len(raw) > 0 {
				if err := json.Unmarshal(raw, &a); err != nil {
					return nil, err
				}
			}
			return f(ctx, a)
		}}
	}
	return []mcpserver.Tool{
		{Name: "echo", Description: "returns its arguments", InputSchema: obj, Handler: func(_ context.Context, args json.RawMessage) (json.RawMessage, error) {
			if len(args) == 0 {
				args = json.RawMessage("null")
			}
			return r.result(`"args":%s`, args)
		}},
		tool("count", "n progress notifications, then n", func(ctx context.Context, a tagArgs) (json.RawMessage, error) {
			for i := 1; i <= a.N; i++ {
				mcpserver.Progress(ctx, float64(i), float64(a.N), "")
			}
			return r.result(`"n":%d`, a.N)
		}),
		tool("announce", "a log message to every session", func(_ context.Context, a tagArgs) (json.RawMessage, error) {
			r.srv.Log(mcp.LevelNotice, "announce", map[string]string{"text": a.Text})
			return r.result(`"text":%q`, a.Text)
		}),
		tool("block", "waits until cancelled", func(ctx context.Context, a tagArgs) (json.RawMessage, error) {
			mcpserver.Progress(ctx, 1, 0, "started")
			<-ctx.Done()
			pctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			key := r.prefix + "cancelled:" + a.Tag
			r.rdb.RPush(pctx, key, r.name)
			r.rdb.Expire(pctx, key, time.Minute)
			return nil, ctx.Err()
		}),
		tool("cancelled", "waits (10 s at most) until block's call of tag was cancelled; the replica that ran it", func(ctx context.Context, a tagArgs) (json.RawMessage, error) {
			ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
			defer cancel()
			kv, err := r.rdb.BLPop(ctx, 10*time.Second, r.prefix+"cancelled:"+a.Tag).Result()
			if err == goredis.Nil {
				return json.RawMessage(`{"cancelled":false}`), nil
			}
			if err != nil {
				return nil, err
			}
			return fmt.Appendf(nil, `{"cancelled":true,"ranOn":%q}`, kv[1]), nil
		}),
		tool("ask", "elicits a name", func(ctx context.Context, _ tagArgs) (json.RawMessage, error) {
			e, err := ask.Elicit(ctx, &mcp.ElicitParams{Message: "name?", RequestedSchema: json.RawMessage(
				`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)})
			if err != nil {
				return nil, err
			}
			content := e.Content
			if len(content) == 0 {
				content = json.RawMessage("null")
			}
			return r.result(`"action":%q,"content":%s`, e.Action, content)
		}),
		tool("sample", "asks the client's model for a message", func(ctx context.Context, _ tagArgs) (json.RawMessage, error) {
			s, err := ask.Sample(ctx, &mcp.CreateMessageParams{MaxTokens: 10,
				Messages: []mcp.SamplingMessage{{Role: "user", Content: mcp.TextContent("hi")}}})
			if err != nil {
				return nil, err
			}
			return r.result(`"text":%q`, s.Content.Text)
		}),
		tool("grow", "adds a tool named grown-TAG to this replica's list (tools/list_changed goes to every session)", func(_ context.Context, a tagArgs) (json.RawMessage, error) {
			r.srv.AddTools(mcpserver.Tool{Name: "grown-" + a.Tag, InputSchema: obj, Handler: func(context.Context, json.RawMessage) (json.RawMessage, error) {
				return json.RawMessage(`{}`), nil
			}})
			return r.result(`"tool":%q`, "grown-"+a.Tag)
		}),
		tool("touch", "changes "+WatchedURI, func(context.Context, tagArgs) (json.RawMessage, error) {
			r.srv.ResourceUpdated(WatchedURI)
			return r.result(`"uri":%q`, WatchedURI)
		}),
	}
}
