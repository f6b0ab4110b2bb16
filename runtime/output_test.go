package runtime_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/rpcgen/rpcgen/internal/loadtest"
	"github.com/rpcgen/rpcgen/runtime"
)

// TestUnsentBounds: toward a peer that does not read (an in-memory
// connection, which buffers nothing), one message always goes and the
// next waits while both fit MaxUnsent; one more fails at once with
// ErrUnread (which counts as not sent), and so does one beyond a full
// budget on a connection holding more than its share of it, while one on a
// connection holding less, or nothing, goes.
// What is held is counted per connection and in the budget, and released
// once the peer reads.
func TestUnsentBounds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		budget := runtime.NewOutputBudget(300 << 10)
		opts := runtime.Options{MaxUnsent: 110 << 10, OutputBudget: budget}
		big := json.RawMessage(`"` + strings.Repeat("x", 50<<10) + `"`)
		type peer struct {
			c  *runtime.Conn
			nc net.Conn
		}
		open := func() peer {
			ours, theirs := net.Pipe()
			c := runtime.NewConn(runtime.NewLineFramer(ours, ours, 0), opts)
			t.Cleanup(func() { theirs.Close(); c.Close() })
			return peer{c, theirs}
		}
		a := open()
		sent := make(chan error, 2)
		for range 2 {
			go func() { sent <- a.c.Notify(context.Background(), "big", []json.RawMessage{big}) }()
		}
		synctest.Wait()
		if n := a.c.Unsent(); n < 100<<10 || n > 101<<10 {
			t.Fatalf("the connection holds %d bytes, want two messages", n)
		}
		err := a.c.Notify(context.Background(), "big", []json.RawMessage{big})
		if !errors.Is(err, runtime.ErrUnread) || !errors.Is(err, runtime.ErrNotSent) || !strings.Contains(err.Error(), "MaxUnsent") {
			t.Fatalf("a third message to a peer that does not read: %v", err)
		}

		// Two more connections nearly fill the budget (300 KiB), with a
		// message each and then a second on b; a second on c goes over it.
		b, c := open(), open()
		go func() { sent <- b.c.Notify(context.Background(), "big", []json.RawMessage{big}) }()
		go func() { sent <- c.c.Notify(context.Background(), "big", []json.RawMessage{big}) }()
		synctest.Wait()
		if n := budget.Used(); n < 200<<10 {
			t.Fatalf("the budget holds %d bytes, want four messages", n)
		}
		go func() { sent <- b.c.Notify(context.Background(), "big", []json.RawMessage{big}) }()
		synctest.Wait()
		err = c.c.Notify(context.Background(), "big", []json.RawMessage{big})
		if !errors.Is(err, runtime.ErrUnread) || !strings.Contains(err.Error(), "OutputBudget") {
			t.Fatalf("a message over the budget: %v", err)
		}
		// A connection that holds nothing still sends, budget or not: d's
		// message goes, and takes the budget over its limit. Then a second,
		// small, still goes on d, which holds less than its share of the
		// budget (a quarter of it, among a, b, c and d), and one more on b,
		// which holds more, does not.
		d := open()
		go func() { sent <- d.c.Notify(context.Background(), "big", []json.RawMessage{big}) }()
		synctest.Wait()
		if used := budget.Used(); used <= budget.Limit() || budget.Holders() != 4 {
			t.Fatalf("the budget holds %d bytes of %d, for %d connections; want it over, for 4", used, budget.Limit(), budget.Holders())
		}
		one := d.c.Unsent()
		go func() { sent <- d.c.Notify(context.Background(), "small", nil) }()
		synctest.Wait()
		if n := d.c.Unsent(); n <= one {
			t.Fatalf("d holds %d bytes, as with its first message alone", n)
		}
		if err := b.c.Notify(context.Background(), "tiny", nil); !errors.Is(err, runtime.ErrUnread) || !strings.Contains(err.Error(), "over its share") {
			t.Fatalf("a message on b, over its share of a full budget: %v", err)
		}

		// The peers read: everything held goes, and the counts come back to 0.
		for _, p := range []peer{a, b, c, d} {
			go func() {
				for {
					if _, err := readLine(p.nc); err != nil {
						return
					}
				}
			}()
		}
		for range 7 {
			if err := <-sent; err != nil {
				t.Fatalf("a message held: %v", err)
			}
		}
		synctest.Wait()
		if a.c.Unsent() != 0 || b.c.Unsent() != 0 || budget.Used() != 0 || budget.Holders() != 0 {
			t.Fatalf("after the peers read: %d, %d held, %d in the budget for %d connections", a.c.Unsent(), b.c.Unsent(), budget.Used(), budget.Holders())
		}
	})
}

// readLine reads one line from nc.
func readLine(nc net.Conn) (string, error) {
	var line []byte
	b := make([]byte, 1)
	for {
		if _, err := nc.Read(b); err != nil {
			return "", err
		}
		if b[0] == '\n' {
			return string(line), nil
		}
		line = append(line, b[0])
	}
}

// TestBudgetBoundAsConnectionsJoin: connections that do not read begin to
// hold one after another, each sending until it is refused. Each takes its
// share of the full budget, which shrinks as each joins (the limit over 1,
// 2, ... 12 connections): what they hold stays within the limit times
// 1 + 1/2 + ... + 1/12, plus one message each, and every connection's first
// message goes.
func TestBudgetBoundAsConnectionsJoin(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const limit, conns = 100 << 10, 12
		budget := runtime.NewOutputBudget(limit)
		opts := runtime.Options{MaxUnsent: 1 << 20, OutputBudget: budget}
		msg := json.RawMessage(`"` + strings.Repeat("x", 1<<10) + `"`)
		var size int64
		harmonic := 0.0
		for k := range conns {
			harmonic += 1 / float64(k+1)
			ours, theirs := net.Pipe()
			c := runtime.NewConn(runtime.NewLineFramer(ours, ours, 0), opts)
			t.Cleanup(func() { theirs.Close(); c.Close() })
			for sent := 0; ; sent++ {
				done := make(chan error, 1)
				go func() { done <- c.Notify(context.Background(), "big", []json.RawMessage{msg}) }()
				synctest.Wait()
				select {
				case err := <-done:
					if !errors.Is(err, runtime.ErrUnread) {
						t.Fatalf("connection %d, message %d: %v, want it held or refused (ErrUnread)", k, sent, err)
					}
				default: // held: the peer does not read
					if size == 0 {
						size = c.Unsent()
					}
					continue
				}
				if sent == 0 {
					t.Fatalf("connection %d: its first message was refused", k)
				}
				break
			}
		}
		if most := int64(harmonic*limit) + conns*size; budget.Used() > most || budget.Holders() != conns {
			t.Fatalf("the budget holds %d bytes for %d connections; want at most %d (the limit times %.2f and a message of %d bytes each), for %d", budget.Used(), budget.Holders(), most, harmonic, size, conns)
		}
	})
}

// TestRefusedBatchAnswer: a batch whose reply the output bounds refuse (a
// peer that has not read the answer before it) is answered with an error
// for each of its calls, with their ids, in one batch, so that every call
// of the peer ends; the answer before it goes as it was.
func TestRefusedBatchAnswer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ours, theirs := net.Pipe()
		c := runtime.NewConn(runtime.NewLineFramer(ours, ours, 0), runtime.Options{
			Handler: loadtest.Handler(), TrustResults: true, MaxUnsent: 10 << 10})
		t.Cleanup(func() { theirs.Close(); c.Close() })
		for _, req := range []string{
			`{"jsonrpc":"2.0","id":1,"method":"big","params":[8192]}`,
			`[{"jsonrpc":"2.0","id":"two","method":"big","params":[8192]},{"jsonrpc":"2.0","method":"big","params":[1]},{"jsonrpc":"2.0","id":3,"method":"big","params":[8192]}]`,
		} {
			if _, err := io.WriteString(theirs, req+"\n"); err != nil {
				t.Fatal(err)
			}
			synctest.Wait() // the first answer is held: its peer does not read
		}
		first, err := readLine(theirs)
		if err != nil || !strings.HasPrefix(first, `{"jsonrpc":"2.0","id":1,"result":"xxx`) {
			t.Fatalf("the first answer: %.60q, %v", first, err)
		}
		line, err := readLine(theirs)
		if err != nil {
			t.Fatal(err)
		}
		var batch []struct {
			ID    json.RawMessage
			Error *runtime.Error
		}
		if err := json.Unmarshal([]byte(line), &batch); err != nil {
			t.Fatalf("the batch's answer %q: %v", line, err)
		}
		if len(batch) != 2 || string(batch[0].ID) != `"two"` || string(batch[1].ID) != "3" {
			t.Fatalf("the batch's answer %q: want an error for the calls \"two\" and 3", line)
		}
		for _, a := range batch {
			if a.Error == nil || a.Error.Code != runtime.CodeServerError || !strings.Contains(a.Error.Message, "answer not sent") {
				t.Fatalf("the batch's answer %q: want errors saying the answer was not sent", line)
			}
		}
	})
}
