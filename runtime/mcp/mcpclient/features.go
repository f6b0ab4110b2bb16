package mcpclient

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/rpcgen/rpcgen/runtime/mcp"
)

var _ mcp.FeatureCaller = (*Client)(nil)

// ListResources returns every resource the server lists, following
// nextCursor through all pages.
func (c *Client) ListResources(ctx context.Context) ([]mcp.ResourceInfo, error) {
	return listAll[mcp.ResourceInfo](ctx, c, mcp.MethodResourcesList, "resources")
}

// ListResourceTemplates returns every resource template the server lists,
// following nextCursor through all pages.
func (c *Client) ListResourceTemplates(ctx context.Context) ([]mcp.ResourceTemplateInfo, error) {
	return listAll[mcp.ResourceTemplateInfo](ctx, c, mcp.MethodResourcesTemplatesList, "resourceTemplates")
}

// ListPrompts returns every prompt the server lists, following nextCursor
// through all pages.
func (c *Client) ListPrompts(ctx context.Context) ([]mcp.PromptInfo, error) {
	return listAll[mcp.PromptInfo](ctx, c, mcp.MethodPromptsList, "prompts")
}

// ReadResource reads the resource uri and returns its contents. In
// 2026-07-28 it answers the server's requests for input through the
// Options handlers. An unknown resource is a *runtime.Error (-32002
// from a legacy server, -32602 from a 2026-07-28 one).
func (c *Client) ReadResource(ctx context.Context, uri string) ([]mcp.ResourceContents, error) {
	raw, err := c.callWithInput(ctx, mcp.MethodResourcesRead, uri, func(cb *clientBuf) error {
		cb.field("uri")
		cb.str(uri)
		return nil
	}, nil)
	if err != nil {
		return nil, err
	}
	var res struct {
		Contents []mcp.ResourceContents `json:"contents"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, fmt.Errorf("mcp: decode result of resources/read %s: %w", uri, err)
	}
	return res.Contents, nil
}

// GetPrompt renders the prompt name with args (nil for none). In 2026-07-28
// it answers the server's requests for input through the Options
// handlers. An unknown prompt or a missing argument is a *runtime.Error.
func (c *Client) GetPrompt(ctx context.Context, name string, args map[string]string) (*mcp.GetPromptResult, error) {
	raw, err := c.callWithInput(ctx, mcp.MethodPromptsGet, name, func(cb *clientBuf) error {
		cb.field("name")
		cb.str(name)
		if len(args) > 0 {
			cb.field("arguments")
			b, err := json.Marshal(args)
			if err != nil {
				return fmt.Errorf("mcp: encode arguments of prompt %s: %w", name, err)
			}
			cb.b.Write(b)
		}
		return nil
	}, nil)
	if err != nil {
		return nil, err
	}
	res := new(mcp.GetPromptResult)
	if err := json.Unmarshal(raw, res); err != nil {
		return nil, fmt.Errorf("mcp: decode result of prompts/get %s: %w", name, err)
	}
	return res, nil
}

// completeParams are the params of completion/complete.
type completeParams struct {
	Ref      mcp.CompletionRef `json:"ref"`
	Argument struct {
		Name  string `json:"name"`
		Value string `json:"value"`
	} `json:"argument"`
	Context *struct {
		Arguments map[string]string `json:"arguments"`
	} `json:"context,omitempty"`
}

// Complete asks the server for values of argument (of a prompt or a
// resource template, as ref names) that start with what the user typed,
// value; context holds the arguments already resolved, nil for none.
func (c *Client) Complete(ctx context.Context, ref mcp.CompletionRef, argument, value string, context map[string]string) (*mcp.Completion, error) {
	if ref.Type != "ref/prompt" && ref.Type != "ref/resource" {
		return nil, fmt.Errorf("mcp: completion ref type %q (want ref/prompt or ref/resource)", ref.Type)
	}
	var p completeParams
	p.Ref = ref
	p.Argument.Name, p.Argument.Value = argument, value
	if len(context) > 0 {
		p.Context = &struct {
			Arguments map[string]string `json:"arguments"`
		}{context}
	}
	var res struct {
		Completion *mcp.Completion `json:"completion"`
	}
	if err := c.call(ctx, mcp.MethodCompletionComplete, &p, &res); err != nil {
		return nil, err
	}
	if res.Completion == nil {
		return nil, fmt.Errorf("mcp: the result of completion/complete has no completion")
	}
	if res.Completion.Values == nil {
		res.Completion.Values = []string{}
	}
	return res.Completion, nil
}

// Subscribe asks the server for notifications/resources/updated about uri,
// delivered to Options.OnResourceUpdated. A legacy session sends
// resources/subscribe. In 2026-07-28 the client keeps one
// subscriptions/listen stream for every resource subscribed (and, when
// OnListChanged is set, the list changes), and Subscribe returns once the
// server has acknowledged the new set.
func (c *Client) Subscribe(ctx context.Context, uri string) error {
	if c.Modern() {
		return c.subscribeModern(ctx, uri, true)
	}
	return c.subscription(ctx, mcp.MethodResourcesSubscribe, uri)
}

// Unsubscribe undoes Subscribe: a legacy session sends
// resources/unsubscribe; in 2026-07-28 the listen stream moves to the
// remaining set (and ends when nothing is left to hear).
func (c *Client) Unsubscribe(ctx context.Context, uri string) error {
	if c.Modern() {
		return c.subscribeModern(ctx, uri, false)
	}
	return c.subscription(ctx, mcp.MethodResourcesUnsubscribe, uri)
}

func (c *Client) subscription(ctx context.Context, method, uri string) error {
	err := c.call(ctx, method, &struct {
		URI string `json:"uri"`
	}{uri}, nil)
	if err == nil && ctx.Value(clientRenewKey{}) == nil {
		c.subscribed(uri, method == mcp.MethodResourcesSubscribe) // for a new session
	}
	return err
}
