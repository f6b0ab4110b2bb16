package runtime_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/rpcgen/rpcgen/runtime"
)

type overdraft struct {
	Balance int `json:"balance"`
}

var (
	errOverdraft = runtime.DefineError[overdraft](2001, "insufficient funds")
	errFrozen    = runtime.NewError(2002, "account frozen")
)

// TestErrorDef checks a declared error across a connection: the server
// returns it with data, the client's error is it (errors.Is), its data
// decodes typed, and other codes are not it.
func TestErrorDef(t *testing.T) {
	a, b := runtime.Pipe()
	server := runtime.NewConn(a, runtime.Options{Handler: runtime.HandlerFunc(func(ctx context.Context, req *runtime.Request) (json.RawMessage, error) {
		switch req.Method {
		case "withdraw":
			return nil, fmt.Errorf("withdraw: %w", errOverdraft.With(overdraft{Balance: 5}))
		case "freeze":
			return nil, errFrozen
		}
		return nil, runtime.ErrMethodNotFound(req.Method)
	})})
	client := runtime.NewConn(b, runtime.Options{})
	t.Cleanup(func() { client.Close(); server.Close() })
	ctx := context.Background()

	err := client.Call(ctx, "withdraw", nil, nil)
	if !errors.Is(err, errOverdraft) || errors.Is(err, errFrozen) {
		t.Fatalf("withdraw: %v; want errOverdraft, not errFrozen", err)
	}
	data, ok := errOverdraft.DataOf(err)
	if !ok || data.Balance != 5 {
		t.Errorf("DataOf = %+v, %v; want balance 5", data, ok)
	}
	var rpcErr *runtime.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != 2001 || rpcErr.Message != "insufficient funds" {
		t.Errorf("withdraw: %#v", rpcErr)
	}

	err = client.Call(ctx, "freeze", nil, nil)
	if !errors.Is(err, errFrozen) || errors.Is(err, errOverdraft) {
		t.Errorf("freeze: %v; want errFrozen, not errOverdraft", err)
	}
	if _, ok := errOverdraft.DataOf(err); ok {
		t.Error("DataOf of another code succeeded")
	}
	if _, ok := errOverdraft.DataOf(errors.New("plain")); ok {
		t.Error("DataOf of a plain error succeeded")
	}
	if errors.Is(errors.New("jsonrpc: insufficient funds (code 2001)"), errOverdraft) {
		t.Error("a plain error with the same text is errOverdraft")
	}
	if got := errOverdraft.Error(); got != "jsonrpc: insufficient funds (code 2001)" {
		t.Errorf("Error() = %q", got)
	}
}
