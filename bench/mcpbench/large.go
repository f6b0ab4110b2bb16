package mcpbench

// The large workload: one tools/call whose structured result is about 1 MiB
// (service.LargeN records), in process, rpcgen against the floor.

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/rpcgen/rpcgen/bench/mcpbench/service"
)

// LargeCaller is a Caller that can also call the large tool. rpcgen and the
// floor implement it; the other peers serve add and echo only.
type LargeCaller interface {
	Caller
	Large(ctx context.Context, n int) ([]service.Record, error)
}

// LargeBytes is the size of the large tool's structured result: the JSON of
// service.LargeN records, the payload its per-byte figures are stated in.
var LargeBytes = func() int {
	b, err := json.Marshal(service.Records{Items: service.LargeRecords})
	if err != nil {
		panic(err)
	}
	return len(b)
}()

// CallLarge makes one call of the large tool through c and checks the
// answer: service.LargeN records, the first, a middle one and the last
// equal to what the server holds (every record is decoded by the client
// either way, so checking them all would add the same cost to every peer).
func CallLarge(ctx context.Context, c LargeCaller) error {
	items, err := c.Large(ctx, service.LargeN)
	if err != nil {
		return fmt.Errorf("large(%d): %w", service.LargeN, err)
	}
	if len(items) != service.LargeN {
		return fmt.Errorf("large(%d) returned %d records", service.LargeN, len(items))
	}
	for _, i := range []int{0, service.LargeN / 2, service.LargeN - 1} {
		if !sameRecord(items[i], service.LargeRecords[i]) {
			return fmt.Errorf("large(%d): record %d is %+v, want %+v", service.LargeN, i, items[i], service.LargeRecords[i])
		}
	}
	return nil
}

func sameRecord(a, b service.Record) bool {
	if a.ID != b.ID || a.Name != b.Name || a.Score != b.Score || a.Active != b.Active || len(a.Tags) != len(b.Tags) {
		return false
	}
	for i := range a.Tags {
		if a.Tags[i] != b.Tags[i] {
			return false
		}
	}
	return true
}

func (c rpcgenCaller) Large(ctx context.Context, n int) ([]service.Record, error) {
	r, err := c.typed.Large(ctx, n)
	return r.Items, err
}

func (f floorCaller) Large(_ context.Context, n int) ([]service.Record, error) {
	r, err := floorRoundTrip(f.era, 1, "large", largeArgs{N: n}, func(in largeArgs) service.Records {
		return service.Records{Items: service.LargeRecords[:in.N]}
	})
	return r.Items, err
}

// largeArgs is the argument object of large.
type largeArgs struct {
	N int `json:"n"`
}
