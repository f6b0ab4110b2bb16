package redis_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/ext/redis/redistest"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
)

// restartRun is what one run of restartUnderLoad saw.
type restartRun struct {
	ok, failed int64 // announce calls answered, and failed
	// renewed counts the clients that started a new session (an
	// OnSessionExpired whose error does not wrap ErrSessionExpired: nil, or
	// what the new session refused); partial joins those refusals.
	renewed int64
	partial []error
	// renewals hears the index of each client that started a new session,
	// for a caller that waits for the callbacks still under way.
	renewals chan int
	// lost and doubled count, over every client, the messages of answered
	// calls that a client did not hear, or heard more than once.
	lost, doubled int
	clients       int
	outage        time.Duration
}

// restartUnderLoad runs three replica processes on rs, clients with their
// standalone streams open and announcers calling announce (a log message
// to every session) without pause; once each announcer has had some
// answers, down takes Redis down, calls fail for a while, up brings it
// back. It returns what the clients heard of the announcements whose calls
// were answered.
func restartUnderLoad(t *testing.T, rs *redistest.Server, down, up func()) restartRun {
	c := startProcs(t, rs)
	const clients, announcers = 6, 3
	type inbox struct {
		mu   sync.Mutex
		seen map[string]int
		got  chan string
	}
	boxes := make([]*inbox, clients)
	cls := make([]*mcpclient.Client, clients)
	var (
		renewMu  sync.Mutex
		renewed  = make([]bool, clients)
		partial  []error
		renewals = make(chan int, 64*clients)
	)
	for i := range clients {
		b := &inbox{seen: map[string]int{}, got: make(chan string, 4096)}
		boxes[i] = b
		cls[i] = connect(t, c.URL, mcpclient.Options{OnSessionExpired: func(err error) {
			if errors.Is(err, mcpclient.ErrSessionExpired) {
				return // an attempt failed; the client tries again
			}
			renewMu.Lock()
			renewed[i] = true
			if err != nil {
				partial = append(partial, err)
			}
			renewMu.Unlock()
			select {
			case renewals <- i:
			default:
			}
		}, OnLog: func(m mcp.LogMessage) {
			var d struct{ Text string }
			_ = json.Unmarshal(m.Data, &d)
			b.mu.Lock()
			b.seen[d.Text]++
			b.mu.Unlock()
			select {
			case b.got <- d.Text:
			default:
			}
		}})
	}
	ctx := context.Background()
	heardBy := func(text string, d time.Duration) bool {
		timeout := time.After(d)
		for _, b := range boxes {
			for {
				b.mu.Lock()
				n := b.seen[text]
				b.mu.Unlock()
				if n > 0 {
					break
				}
				select {
				case <-b.got:
				case <-timeout:
					return false
				}
			}
		}
		return true
	}
	for n := 0; ; n++ {
		text := fmt.Sprintf("ready%d", n)
		if err := cls[0].CallTool(ctx, "announce", map[string]string{"text": text}, nil); err != nil {
			t.Fatal(err)
		}
		if heardBy(text, 2*time.Second) {
			break
		}
		if n == 10 {
			t.Fatal("the clients' standalone streams did not open")
		}
	}
	var (
		run      restartRun
		mu       sync.Mutex
		answered []string
		failures = make(chan struct{}, 1<<16)
		answers  = make(chan struct{}, 1<<16)
		stop     = make(chan struct{})
		wg       sync.WaitGroup
	)
	for a := range announcers {
		wg.Go(func() {
			for k := 0; ; k++ {
				select {
				case <-stop:
					return
				default:
				}
				text := fmt.Sprintf("a%d-%d", a, k)
				if err := cls[a].CallTool(ctx, "announce", map[string]string{"text": text}, nil); err != nil {
					failures <- struct{}{}
					continue
				}
				mu.Lock()
				answered = append(answered, text)
				mu.Unlock()
				answers <- struct{}{}
			}
		})
	}
	for range 20 * announcers {
		<-answers
	}
	start := time.Now()
	down()
	// Redis stays down until the announcers have had calls fail.
	for range announcers {
		<-failures
	}
	up()
	run.outage = time.Since(start)
	// Until the announcers have had as many answers again.
	for len(answers) > 0 {
		<-answers
	}
	for range 20 * announcers {
		<-answers
	}
	close(stop)
	wg.Wait()

	for n := 0; ; n++ {
		text := fmt.Sprintf("end%d", n)
		err := cls[0].CallTool(ctx, "announce", map[string]string{"text": text}, nil)
		if err == nil && heardBy(text, 10*time.Second) {
			break
		}
		if n == 10 {
			t.Fatal("the clients do not hear announcements after Redis came back")
		}
	}
	run.ok, run.failed, run.clients = int64(len(answered)), int64(len(failures))+announcers, clients
	renewMu.Lock()
	for _, r := range renewed {
		if r {
			run.renewed++
		}
	}
	run.partial = partial
	renewMu.Unlock()
	run.renewals = renewals
	for _, b := range boxes {
		b.mu.Lock()
		for _, text := range answered {
			switch n := b.seen[text]; {
			case n == 0:
				run.lost++
			case n > 1:
				run.doubled++
			}
		}
		b.mu.Unlock()
	}
	t.Logf("Redis down for %v: %d announcements answered, %d calls failed; of the answered ones' %d deliveries (%d clients), %d lost (%.2f%%), %d more than once; %d new sessions",
		run.outage.Round(time.Millisecond), run.ok, run.failed, run.ok*clients, clients, run.lost,
		100*float64(run.lost)/float64(run.ok*clients), run.doubled, run.renewed)
	return run
}

// TestRedisRestart: Redis restarted while three replicas serve, clients
// hear and announcers announce (a log message to every session) without
// pause. With an append-only file (appendfsync everysec), stopped as an
// operator does (SIGTERM) or killed (SIGKILL), the sessions survive, and
// every announcement whose call was answered reaches every client, once:
// the replicas store a notification once Redis is back (within ten store
// timeouts), and a store tried again after a broken connection is not
// stored twice. Without persistence, the sessions are gone, and rpcgen's
// client starts a new one (what was announced meanwhile is lost to it).
func TestRedisRestart(t *testing.T) {
	for _, tc := range []struct {
		name  string
		cfg   redistest.Config
		crash bool
		gone  bool // the sessions are lost
	}{
		{"appendonly/SIGTERM", redistest.Config{AppendOnly: true}, false, false},
		{"appendonly/SIGKILL", redistest.Config{AppendOnly: true}, true, false},
		{"memory/SIGKILL", redistest.Config{}, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rs := redistest.StartWith(t, tc.cfg)
			down := rs.Shutdown
			if tc.crash {
				down = rs.Stop
			}
			run := restartUnderLoad(t, rs, down, rs.Restart)
			if tc.gone {
				// Every client heard the last announcement, so each is on a
				// new session; its OnSessionExpired may still be under way.
				seen, n := map[int]bool{}, 0
				timeout := time.After(30 * time.Second)
				for n < run.clients {
					select {
					case i := <-run.renewals:
						if !seen[i] {
							seen[i] = true
							n++
						}
					case <-timeout:
						t.Fatalf("%d clients reported a new session, want all %d", n, run.clients)
					}
				}
				for _, err := range run.partial {
					t.Logf("a new session refused: %v", err)
				}
				return
			}
			if run.lost != 0 || run.doubled != 0 || run.renewed != 0 {
				t.Errorf("%d deliveries lost, %d doubled, %d new sessions; want none", run.lost, run.doubled, run.renewed)
			}
		})
	}
}
