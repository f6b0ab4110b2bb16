package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/runtime"
)

// TestExamples runs every //rpcgen:example of Calculator against the
// implementation: each documented answer must still be the real one.
func TestExamples(t *testing.T) {
	if len(CalculatorExamples) != 6 {
		t.Fatalf("%d examples, want the 6 of calculator.go", len(CalculatorExamples))
	}
	if err := runtime.CheckExamples(context.Background(), NewCalculatorHandler(&calculator{}), CalculatorExamples); err != nil {
		t.Error(err)
	}
}

// TestStaleExamples runs the helper on examples made stale on purpose (a
// result the implementation no longer gives, an error it no longer fails
// with, error data that changed) and checks that each fails, by name.
func TestStaleExamples(t *testing.T) {
	stale := map[string]func(*runtime.Example){
		"quarter": func(ex *runtime.Example) { ex.Result = json.RawMessage(`2.4`) },
		"one":     func(ex *runtime.Example) { ex.Result = json.RawMessage(`{"count":0,"sum":0,"mean":0,"min":0,"max":0}`) },
		"by zero": func(ex *runtime.Example) { ex.Error.Data = json.RawMessage(`{"dividend":2}`) },
		"small":   func(ex *runtime.Example) { ex.Result, ex.Error = nil, &runtime.Error{Code: ErrDivisionByZero.Code} },
	}
	h := NewCalculatorHandler(&calculator{})
	for name, spoil := range stale {
		var found bool
		for _, ex := range CalculatorExamples {
			if ex.Name != name {
				continue
			}
			found = true
			if ex.Error != nil {
				e := *ex.Error
				ex.Error = &e // the shared example stays as it is
			}
			spoil(&ex)
			err := runtime.CheckExamples(context.Background(), h, []runtime.Example{ex})
			if err == nil || !strings.Contains(err.Error(), `example "`+name+`"`) {
				t.Errorf("stale example %q: CheckExamples = %v, want a failure naming it", name, err)
			}
		}
		if !found {
			t.Errorf("no example %q", name)
		}
	}
}
