package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
)

// fakeToolCaller answers every tool call with its structured content, or
// fails with err.
type fakeToolCaller struct {
	structured string
	err        error
}

func (f fakeToolCaller) CallTool(_ context.Context, _ string, _, result any) error {
	if f.err != nil {
		return f.err
	}
	return json.Unmarshal([]byte(f.structured), result)
}

func TestCallToolHelpers(t *testing.T) {
	ctx := context.Background()
	type sum struct{ Total int }
	if got, err := CallTool[sum](ctx, fakeToolCaller{structured: `{"Total":3}`}, "add", nil); err != nil || got.Total != 3 {
		t.Fatalf("CallTool = %v, %v", got, err)
	}
	if got, err := CallToolWrapped[[]string](ctx, fakeToolCaller{structured: `{"result":["a","b"]}`}, "list", nil); err != nil || len(got) != 2 || got[1] != "b" {
		t.Fatalf("CallToolWrapped = %v, %v", got, err)
	}
	boom := errors.New("boom")
	if got, err := CallTool[sum](ctx, fakeToolCaller{err: boom}, "add", nil); !errors.Is(err, boom) || got != (sum{}) {
		t.Fatalf("failing CallTool = %v, %v", got, err)
	}
	if got, err := CallToolWrapped[[]string](ctx, fakeToolCaller{err: boom}, "list", nil); !errors.Is(err, boom) || got != nil {
		t.Fatalf("failing CallToolWrapped = %v, %v", got, err)
	}
}
