package mcpbench

import (
	"context"
	"testing"
)

// TestToolsCallAllocs pins the allocations of one in-process tools/call
// through rpcgen's generated client and server, both sides counted, at the
// exact number measured: a change that adds one fails here, and a change
// that removes some lowers the number (issue 32's goal for add is 10).
func TestToolsCallAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("exact allocation counts do not hold under the race detector")
	}
	want := map[string]float64{
		"add/" + EraLegacy:  addLegacyAllocs,
		"add/" + EraModern:  addModernAllocs,
		"echo/" + EraLegacy: echoLegacyAllocs,
		"echo/" + EraModern: echoModernAllocs,
	}
	for _, tool := range Tools {
		for _, era := range eras {
			t.Run(tool+"/"+era, func(t *testing.T) {
				ctx := context.Background()
				c, err := rpcgenPeer.Connect(ctx, InProcess, era)
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				// Warm up: the pooled buffers grow to the messages' size once.
				for i := range 20 {
					if err := Call(ctx, c, tool, i); err != nil {
						t.Fatal(err)
					}
				}
				i := 0
				var callErr error
				got := testing.AllocsPerRun(200, func() {
					if err := Call(ctx, c, tool, i); err != nil && callErr == nil {
						callErr = err
					}
					i++
				})
				if callErr != nil {
					t.Fatal(callErr)
				}
				if got != want[tool+"/"+era] {
					t.Errorf("%s %s in process: %v allocations per call, want %v", tool, era, got, want[tool+"/"+era])
				}
			})
		}
	}
}

// The allocations of one call, both sides together.
const (
	addLegacyAllocs  = 6
	addModernAllocs  = 6
	echoLegacyAllocs = 8
	echoModernAllocs = 8
)
