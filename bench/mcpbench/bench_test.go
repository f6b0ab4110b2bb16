package mcpbench

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"
)

// TestMain turns this binary into a peer's stdio server when ServeEnv says
// so; the stdio benchmarks start it that way.
func TestMain(m *testing.M) {
	if serving, err := ServeStdio(); serving {
		if err != nil {
			fmt.Fprintln(os.Stderr, "mcpbench server:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

var (
	transports  = []string{InProcess, Pipes, Stdio}
	eras        = []string{EraLegacy, EraModern}
	concurrency = []int{1, 16, 64}
)

// BenchmarkToolsCall measures one tools/call round trip, client and server
// together, for every tool, transport, era, number of concurrent callers and
// peer. impl=floor, in the in-process rows, is the JSON work alone.
func BenchmarkToolsCall(b *testing.B) {
	for _, tool := range Tools {
		for _, tr := range transports {
			for _, era := range eras {
				for _, c := range concurrency {
					prefix := fmt.Sprintf("%s/%s/%s/c=%d/", tool, tr, era, c)
					for _, p := range Peers {
						b.Run(prefix+"impl="+p.Name, func(b *testing.B) {
							ctx := context.Background()
							cl, err := p.Connect(ctx, tr, era)
							if err != nil {
								b.Fatal(err)
							}
							RunCalls(b, cl, tool, c)
							b.StopTimer()
							if err := cl.Close(); err != nil {
								b.Fatal(err)
							}
						})
					}
					if tr == InProcess {
						b.Run(prefix+"impl=floor", func(b *testing.B) { RunCalls(b, Floor(era), tool, c) })
					}
				}
			}
		}
	}
}

// BenchmarkToolsCallLarge measures one in-process tools/call of the large
// tool, whose structured result is about 1 MiB (LargeBytes), one caller at a
// time: rpcgen and the floor. MB/s counts the structured result's bytes.
func BenchmarkToolsCallLarge(b *testing.B) {
	ctx := context.Background()
	for _, era := range eras {
		for _, p := range []*Peer{rpcgenPeer} {
			b.Run(fmt.Sprintf("large/inprocess/%s/c=1/impl=%s", era, p.Name), func(b *testing.B) {
				cl, err := p.Connect(ctx, InProcess, era)
				if err != nil {
					b.Fatal(err)
				}
				runLarge(b, cl.(LargeCaller))
				b.StopTimer()
				if err := cl.Close(); err != nil {
					b.Fatal(err)
				}
			})
		}
		b.Run(fmt.Sprintf("large/inprocess/%s/c=1/impl=floor", era), func(b *testing.B) {
			runLarge(b, Floor(era).(LargeCaller))
		})
	}
}

func runLarge(b *testing.B, cl LargeCaller) {
	ctx := context.Background()
	if err := CallLarge(ctx, cl); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(LargeBytes))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if err := CallLarge(ctx, cl); err != nil {
			b.Fatal(err)
		}
	}
}

// TestPeers checks every peer on every transport and era: both tools answer
// correctly, one call at a time and 16 at once, and the connection closes
// cleanly.
func TestPeers(t *testing.T) {
	for _, p := range Peers {
		for _, tr := range transports {
			for _, era := range eras {
				t.Run(p.Name+"/"+tr+"/"+era, func(t *testing.T) {
					ctx := context.Background()
					cl, err := p.Connect(ctx, tr, era)
					if err != nil {
						t.Fatal(err)
					}
					checkCalls(t, cl)
					if err := cl.Close(); err != nil {
						t.Errorf("close: %v", err)
					}
				})
			}
		}
	}
}

func TestFloor(t *testing.T) {
	for _, era := range eras {
		checkCalls(t, Floor(era))
	}
}

// TestLarge checks the large tool on rpcgen and the floor, both eras.
func TestLarge(t *testing.T) {
	ctx := context.Background()
	for _, era := range eras {
		cl, err := rpcgenPeer.Connect(ctx, InProcess, era)
		if err != nil {
			t.Fatal(err)
		}
		if err := CallLarge(ctx, cl.(LargeCaller)); err != nil {
			t.Errorf("rpcgen %s: %v", era, err)
		}
		cl.Close()
		if err := CallLarge(ctx, Floor(era).(LargeCaller)); err != nil {
			t.Errorf("floor %s: %v", era, err)
		}
	}
}

func checkCalls(t *testing.T, cl Caller) {
	t.Helper()
	ctx := context.Background()
	for _, tool := range Tools {
		if err := Call(ctx, cl, tool, 7); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		errs := make(chan error, 16)
		for i := range 16 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs <- Call(ctx, cl, tool, i)
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestValidation shows which peers check arguments against the input
// schema: add without "b" must fail on rpcgen, gosdk and mcpgo-validate;
// mcpgo and the reference bind it as 0.
func TestValidation(t *testing.T) {
	validates := map[string]bool{"rpcgen": true, "gosdk": true, "mcpgo-validate": true}
	for _, p := range Peers {
		t.Run(p.Name, func(t *testing.T) {
			cl, err := p.Connect(context.Background(), InProcess, EraLegacy)
			if err != nil {
				t.Fatal(err)
			}
			defer cl.Close()
			raw, ok := cl.(interface {
				callRaw(ctx context.Context, tool string, args any) error
			})
			if !ok {
				t.Fatalf("%T has no callRaw", cl)
			}
			err = raw.callRaw(context.Background(), "add", map[string]any{"a": 1})
			if got := err != nil; got != validates[p.Name] {
				t.Errorf("add {a:1}: error %v; want an error: %v", err, validates[p.Name])
			}
		})
	}
}
