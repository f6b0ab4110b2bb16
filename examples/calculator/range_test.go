package main

import (
	"context"
	"encoding/json"
	"errors"
	"math/big"
	"os"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/runtime"
)

// TestIntegerRange reads the range calculator.openrpc.json states for Add's
// integer params and checks that the server enforces exactly it: its ends
// are accepted, one past either end is refused with invalid params and a
// message naming the param and the range.
func TestIntegerRange(t *testing.T) {
	file, err := os.ReadFile("calculator.openrpc.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Methods []struct {
			Name   string
			Params []struct {
				Name   string
				Schema struct {
					Type             string
					Minimum, Maximum json.Number
				}
			}
		}
	}
	if err := json.Unmarshal(file, &doc); err != nil {
		t.Fatal(err)
	}
	a, b := runtime.Pipe()
	server := runtime.NewConn(a, runtime.Options{Handler: NewCalculatorHandler(&calculator{})})
	client := runtime.NewConn(b, runtime.Options{})
	t.Cleanup(func() { client.Close(); server.Close() })
	call := func(params string) error {
		var sum json.RawMessage
		return client.Call(context.Background(), CalculatorAddMethod, json.RawMessage(params), &sum)
	}

	checked := 0
	for _, m := range doc.Methods {
		if m.Name != CalculatorAddMethod {
			continue
		}
		for _, p := range m.Params {
			s := p.Schema
			if s.Type != "integer" || s.Minimum == "" || s.Maximum == "" {
				t.Fatalf("param %s: schema %+v, want an integer with its range", p.Name, s)
			}
			other := "a"
			if p.Name == "a" {
				other = "b"
			}
			params := func(v string) string { return `{"` + p.Name + `":` + v + `,"` + other + `":0}` }
			for _, end := range []json.Number{s.Minimum, s.Maximum} {
				if err := call(params(string(end))); err != nil {
					t.Errorf("%s = %s (an end of the stated range): %v", p.Name, end, err)
				}
			}
			for _, out := range []string{step(t, s.Minimum, -1), step(t, s.Maximum, 1), "1e30"} {
				err := call(params(out))
				var rpcErr *runtime.Error
				if !errors.As(err, &rpcErr) || rpcErr.Code != runtime.CodeInvalidParams {
					t.Errorf("%s = %s (outside the stated range): got %v, want invalid params", p.Name, out, err)
					continue
				}
				want := `"` + p.Name + `": expected an integer between ` + string(s.Minimum) + " and " + string(s.Maximum)
				if !strings.Contains(rpcErr.Message, want) {
					t.Errorf("%s = %s: message %q does not say %q", p.Name, out, rpcErr.Message, want)
				}
			}
			checked++
		}
	}
	if checked != 2 {
		t.Fatalf("checked %d params of %s, want 2", checked, CalculatorAddMethod)
	}
}

// step returns n + d, exactly.
func step(t *testing.T, n json.Number, d int64) string {
	v, ok := new(big.Int).SetString(string(n), 10)
	if !ok {
		t.Fatalf("%s is not an integer", n)
	}
	return v.Add(v, big.NewInt(d)).String()
}
