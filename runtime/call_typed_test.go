package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
)

// fakeCaller answers every call with its JSON, or fails with err.
type fakeCaller struct {
	json string
	err  error
}

func (f fakeCaller) Call(_ context.Context, _ string, _, result any) error {
	if f.err != nil {
		return f.err
	}
	return json.Unmarshal([]byte(f.json), result)
}

func (f fakeCaller) Notify(context.Context, string, any) error { return f.err }

func TestCall(t *testing.T) {
	type pair struct{ A, B int }
	got, err := Call[pair](context.Background(), fakeCaller{json: `{"A":1,"B":2}`}, "m", nil)
	if err != nil || got != (pair{1, 2}) {
		t.Fatalf("Call = %v, %v", got, err)
	}
	boom := errors.New("boom")
	got, err = Call[pair](context.Background(), fakeCaller{err: boom}, "m", nil)
	if !errors.Is(err, boom) || got != (pair{}) {
		t.Fatalf("failing Call = %v, %v; want the zero value and the error", got, err)
	}
	// A result that does not decode is the caller's error, and the zero value.
	list, err := Call[[]int](context.Background(), fakeCaller{json: `[1,"x"]`}, "m", nil)
	if err == nil || list != nil {
		t.Fatalf("undecodable Call = %v, %v", list, err)
	}
}
