package main

import (
	"context"
	"math"
	"sync"

	"github.com/rpcgen/rpcgen/runtime"
)

//go:generate go tool rpcgen --openrpc calculator.openrpc.json --ts calculator_client.ts --docs calculator_api.md --api-version 1.0.0 Calculator

// Calculator does arithmetic and keeps one number in memory.
type Calculator interface {
	// Add returns a + b.
	//
	// a: the first addend.
	// b: the second addend.
	// result: the sum.
	//
	//rpcgen:example name=small params={"a":2,"b":3} result=5
	//rpcgen:example name="by position" params=[-7,7] result=0
	Add(ctx context.Context, a, b int) (int, error)
	// Divide returns a / b. Dividing by zero fails with ErrDivisionByZero.
	//
	// a: the dividend.
	// b: the divisor.
	// result: the quotient.
	//
	//rpcgen:method errors=ErrDivisionByZero
	//rpcgen:example name=quarter params={"a":10,"b":4} result=2.5
	//rpcgen:example name="by zero" params={"a":1,"b":0} error=ErrDivisionByZero data={"dividend":1}
	Divide(ctx context.Context, a, b float64) (float64, error)
	// Stats summarizes a list of numbers.
	//
	//rpcgen:example name=rounded params=`{"numbers":[3,1,4,1,5,9,2,6],"round":2}` result=`{"count":8,"sum":31,"mean":3.88,"min":1,"max":9}`
	//rpcgen:example name=one params={"numbers":[0]} result={"count":1,"sum":0,"mean":0,"min":0,"max":0}
	Stats(ctx context.Context, req StatsRequest) (Stats, error)
	// Remember stores value in memory. It is a notification: the caller
	// does not wait for an answer.
	//
	// value: the number to keep.
	//
	//rpcgen:method notification
	Remember(ctx context.Context, value float64) error
	// Recall returns the value in memory.
	//
	// result: the value Remember stored last, 0 before the first.
	Recall(ctx context.Context) (float64, error)
}

// StatsRequest is the params object of Stats.
type StatsRequest struct {
	// Numbers are the numbers to summarize; there must be at least one.
	Numbers []float64 `json:"numbers"`
	// Round, if above zero, rounds the results to this many decimals.
	Round int `json:"round,omitempty"`
}

// Stats summarizes numbers.
type Stats struct {
	Count int     `json:"count"` // how many numbers there are
	Sum   float64 `json:"sum"`   // their sum
	Mean  float64 `json:"mean"`  // their arithmetic mean
	Min   float64 `json:"min"`   // the smallest
	Max   float64 `json:"max"`   // the largest
}

// CodeDivisionByZero is the JSON-RPC error code Divide fails with. It lies
// outside the range -32768..-32000 that JSON-RPC reserves.
const CodeDivisionByZero = 1001

// ErrDivisionByZero is the error Divide fails with when b is 0; its data
// holds the dividend. Declared once, it is what Divide returns and what the
// OpenRPC document, the TypeScript client and the MCP tool describe.
var ErrDivisionByZero = runtime.DefineError[DivisionByZero](CodeDivisionByZero, "division by zero")

// DivisionByZero is the data of ErrDivisionByZero.
type DivisionByZero struct {
	// Dividend is the a of the failed call.
	Dividend float64 `json:"dividend"`
}

// calculator is the local implementation.
type calculator struct {
	mu     sync.Mutex
	memory float64
}

func (c *calculator) Add(ctx context.Context, a, b int) (int, error) { return a + b, nil }

func (c *calculator) Divide(ctx context.Context, a, b float64) (float64, error) {
	if b == 0 {
		return 0, ErrDivisionByZero.With(DivisionByZero{Dividend: a})
	}
	return a / b, nil
}

func (c *calculator) Stats(ctx context.Context, req StatsRequest) (Stats, error) {
	if len(req.Numbers) == 0 {
		return Stats{}, runtime.InvalidParams("numbers: need at least one number")
	}
	s := Stats{Count: len(req.Numbers), Min: math.Inf(1), Max: math.Inf(-1)}
	for _, n := range req.Numbers {
		s.Sum += n
		s.Min = min(s.Min, n)
		s.Max = max(s.Max, n)
	}
	s.Mean = s.Sum / float64(s.Count)
	if req.Round > 0 {
		scale := math.Pow(10, float64(req.Round))
		for _, v := range []*float64{&s.Sum, &s.Mean, &s.Min, &s.Max} {
			*v = math.Round(*v*scale) / scale
		}
	}
	return s, nil
}

func (c *calculator) Remember(ctx context.Context, value float64) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.memory = value
	return nil
}

func (c *calculator) Recall(ctx context.Context) (float64, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.memory, nil
}
