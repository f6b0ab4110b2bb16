package rpcbench

import (
	"context"
	"testing"
)

// TestJSONRPCAllocs pins the allocations of one in-memory JSON-RPC add
// through rpcgen's generated client and dispatcher, both sides counted, at
// the exact number measured: a change that adds one fails here, and one
// that removes some lowers the number. The dispatcher encodes the result
// with its generated encoder (9 when it went through encoding/json).
func TestJSONRPCAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("exact allocation counts do not hold under the race detector")
	}
	const want = 6
	ctx := context.Background()
	add := connectMemory(t, rpcgenImpl)
	// Warm up: the pooled buffers grow to the messages' size once.
	for i := range 20 {
		if _, err := add(ctx, i, 1); err != nil {
			t.Fatal(err)
		}
	}
	i := 0
	var callErr error
	got := testing.AllocsPerRun(200, func() {
		if sum, err := add(ctx, i, 1); (err != nil || sum != i+1) && callErr == nil {
			callErr = err
			if err == nil {
				t.Errorf("add(%d, 1) = %d", i, sum)
			}
		}
		i++
	})
	if callErr != nil {
		t.Fatal(callErr)
	}
	if got != want {
		t.Errorf("%v allocations per in-memory call, want %v", got, want)
	}
}
