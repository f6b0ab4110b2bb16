//go:build !race

// The race detector's sync.Pool drops items at random, so allocation counts
// vary under it: this test runs without it (go test ./...).

package mcpserver_test

import (
	"context"
	goruntime "runtime"
	"testing"
)

// A tools/list of 10,000 tools (about 5 MB) allocates its response once: the
// pre-encoded page is appended into the response buffer, which is handed on
// as the reply (too large for the pool) rather than copied; the allocations
// besides are the request's own, a fixed count.
func TestToolsListAllocatesItsPageOnce(t *testing.T) {
	ss := bigListServer(t)
	ctx := context.Background()
	page := len(ss.Handle(ctx, listReq, nil))
	if page < 5_000_000 {
		t.Fatalf("tools/list of %d bytes, want about 5 MB", page)
	}
	const runs = 20
	var before, after goruntime.MemStats
	goruntime.ReadMemStats(&before)
	for range runs {
		if n := len(ss.Handle(ctx, listReq, nil)); n != page {
			t.Fatalf("tools/list of %d bytes, then %d", page, n)
		}
	}
	goruntime.ReadMemStats(&after)
	perCall := float64(after.TotalAlloc-before.TotalAlloc) / runs
	// The page rounded up to the allocator's size class, and the request's
	// small allocations: well under 1% more.
	if limit := float64(page) * 1.01; perCall > limit {
		t.Errorf("tools/list allocates %.0f bytes per call for a %d-byte response: more than %.0f", perCall, page, limit)
	}
	allocs := testing.AllocsPerRun(runs, func() { ss.Handle(ctx, listReq, nil) })
	if allocs != wantToolsListAllocs {
		t.Errorf("tools/list: %v allocations per call, want %d", allocs, wantToolsListAllocs)
	}
	t.Logf("tools/list: %d bytes, %.0f bytes and %v allocations per call", page, perCall, allocs)
}

// wantToolsListAllocs is the exact count: change it only with a reason.
const wantToolsListAllocs = 6
