// Package jsonrpcspec is the service behind the examples of section 7 of the
// JSON-RPC 2.0 specification; its tests check that a generated dispatcher
// answers each example exactly as the specification shows.
package jsonrpcspec

import (
	"context"
	"sync/atomic"
)

//go:generate go tool rpcgen Spec

// Spec holds the methods the specification's examples call.
//
//rpcgen:service name=""
type Spec interface {
	// Subtract returns minuend - subtrahend.
	Subtract(ctx context.Context, minuend, subtrahend int) (int, error)
	// Sum adds three numbers.
	Sum(ctx context.Context, a, b, c int) (int, error)
	// NotifyHello is sent as a notification.
	//rpcgen:method name=notify_hello notification
	NotifyHello(ctx context.Context, n int) error
	// NotifySum is sent as a notification.
	//rpcgen:method name=notify_sum notification
	NotifySum(ctx context.Context, a, b, c int) error
	// Update is sent as a notification.
	//rpcgen:method notification
	Update(ctx context.Context, a, b, c, d, e int) error
	// GetData returns a fixed, mixed list.
	//rpcgen:method name=get_data
	GetData(ctx context.Context) ([]any, error)
}

// Impl implements Spec and counts the notifications it received.
type Impl struct {
	Notifications atomic.Int64
}

var _ Spec = (*Impl)(nil)

// Subtract implements Spec.
func (s *Impl) Subtract(ctx context.Context, minuend, subtrahend int) (int, error) {
	return minuend - subtrahend, nil
}

// Sum implements Spec.
func (s *Impl) Sum(ctx context.Context, a, b, c int) (int, error) { return a + b + c, nil }

// NotifyHello implements Spec.
func (s *Impl) NotifyHello(ctx context.Context, n int) error {
	s.Notifications.Add(1)
	return nil
}

// NotifySum implements Spec.
func (s *Impl) NotifySum(ctx context.Context, a, b, c int) error {
	s.Notifications.Add(1)
	return nil
}

// Update implements Spec.
func (s *Impl) Update(ctx context.Context, a, b, c, d, e int) error {
	s.Notifications.Add(1)
	return nil
}

// GetData implements Spec.
func (s *Impl) GetData(ctx context.Context) ([]any, error) { return []any{"hello", 5}, nil }
