package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
)

// Example is one explicit example of a method, from its
// //rpcgen:example directive: params, and the result or the error they
// get. A generated file lists its services' examples (<Svc>Examples) so
// that a test can run them against the implementation with CheckExamples,
// as go test runs Example functions: the documented example and the real
// answer cannot drift apart unnoticed.
type Example struct {
	Name   string
	Method string
	Params json.RawMessage
	// Result is the expected result; nil for an example of an error.
	Result json.RawMessage
	// Error is the expected error: its code, and its message and data
	// when not empty.
	Error *Error
}

// CheckExamples calls h with each example's params and returns an error
// for every example whose answer differs from what it documents, joined;
// nil when all hold. Results and data are compared as JSON values (object
// members in any order, numbers by value).
//
//	func TestExamples(t *testing.T) {
//		if err := runtime.CheckExamples(ctx, NewCalculatorHandler(&calculator{}), CalculatorExamples); err != nil {
//			t.Error(err)
//		}
//	}
func CheckExamples(ctx context.Context, h Handler, examples []Example) error {
	var errs []error
	for _, ex := range examples {
		if err := checkExample(ctx, h, ex); err != nil {
			errs = append(errs, fmt.Errorf("example %q of %s: %w", ex.Name, ex.Method, err))
		}
	}
	return errors.Join(errs...)
}

func checkExample(ctx context.Context, h Handler, ex Example) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("the method panicked: %v", p)
		}
	}()
	result, callErr := h.ServeRPC(ctx, &Request{ID: Int64ID(1), Method: ex.Method, Params: ex.Params})
	if ex.Error == nil {
		if callErr != nil {
			return fmt.Errorf("got error %v, want result %s", callErr, ex.Result)
		}
		if !sameJSON(result, ex.Result) {
			return fmt.Errorf("got result %s, want %s", orNull(result), ex.Result)
		}
		return nil
	}
	if callErr == nil {
		return fmt.Errorf("got result %s, want error %v", orNull(result), ex.Error)
	}
	got := wireError(callErr)
	switch {
	case got.Code != ex.Error.Code:
		return fmt.Errorf("got error %v, want code %d", got, ex.Error.Code)
	case ex.Error.Message != "" && got.Message != ex.Error.Message:
		return fmt.Errorf("got error message %q, want %q", got.Message, ex.Error.Message)
	case len(ex.Error.Data) > 0 && !sameJSON(got.Data, ex.Error.Data):
		return fmt.Errorf("got error data %s, want %s", orNull(got.Data), ex.Error.Data)
	}
	return nil
}

func orNull(b []byte) []byte {
	if len(bytes.TrimSpace(b)) == 0 {
		return []byte("null")
	}
	return b
}

// sameJSON reports whether a and b hold the same JSON value.
func sameJSON(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(orNull(a), &x) != nil || json.Unmarshal(orNull(b), &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}
