// Package feed is an example of JSON-RPC between services: Quotes is served
// by one process over a Unix socket (cmd/quotes), and a gateway (cmd/gateway)
// calls it through the generated client and serves the same interface to
// browsers over WebSocket, streams included.
package feed

import (
	"context"
	"hash/fnv"
	"iter"
	"time"

	"github.com/rpcgen/rpcgen/runtime"
)

//go:generate go tool rpcgen --ts web/quotes_client.ts --docs quotes_api.md --openrpc quotes.openrpc.json Quotes

// Quotes serves prices of made-up stocks.
//
//rpcgen:service name=quotes
type Quotes interface {
	// Price returns the latest quote of symbol.
	//
	//rpcgen:method idempotent
	Price(ctx context.Context, symbol string) (Quote, error)
	// Watch streams the quotes of symbol, one per tick: count of them, or
	// until the caller stops when count is 0.
	Watch(ctx context.Context, symbol string, count int) iter.Seq2[Quote, error]
}

// Quote is a price at a moment.
type Quote struct {
	Symbol string  `json:"symbol"`
	Seq    int     `json:"seq"`
	Price  float64 `json:"price"`
}

// Market implements Quotes with a deterministic random walk per symbol.
type Market struct {
	// Tick is the time between two quotes of a stream; 0 for none.
	Tick time.Duration
}

var _ Quotes = (*Market)(nil)

// price is the seq-th price of symbol: a walk that starts at 100 and moves
// by at most a cent a step, the same for every caller.
func price(symbol string, seq int) float64 {
	f := fnv.New32a()
	f.Write([]byte(symbol))
	h := f.Sum32()
	cents := 10000
	for i := range seq {
		cents += int((h>>uint(i%29))&2) - 1
	}
	return float64(cents) / 100
}

// Price implements Quotes.
func (m *Market) Price(ctx context.Context, symbol string) (Quote, error) {
	return Quote{Symbol: symbol, Seq: 0, Price: price(symbol, 0)}, nil
}

// Watch implements Quotes: its loop stops when the caller stops reading
// (yield returns false) or cancels.
func (m *Market) Watch(ctx context.Context, symbol string, count int) iter.Seq2[Quote, error] {
	return func(yield func(Quote, error) bool) {
		if count < 0 {
			yield(Quote{}, runtime.InvalidParams("count %d: want 0 (no end) or more", count))
			return
		}
		var tick <-chan time.Time
		if m.Tick > 0 {
			t := time.NewTicker(m.Tick)
			defer t.Stop()
			tick = t.C
		}
		for seq := 1; count == 0 || seq <= count; seq++ {
			if tick != nil {
				select {
				case <-tick:
				case <-ctx.Done():
					yield(Quote{}, ctx.Err())
					return
				}
			}
			if !yield(Quote{Symbol: symbol, Seq: seq, Price: price(symbol, seq)}, nil) {
				return
			}
		}
	}
}
