package rpcnet_test

import (
	"context"
	"encoding/json"
	"fmt"
	goruntime "runtime"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/rpcgen/rpcgen/internal/rpctest"
	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/rpcnet"
)

var bigAnswers sync.Map // of int to json.RawMessage

// bigAnswer is a JSON string of n bytes, quotes included, made once per size.
func bigAnswer(n int) json.RawMessage {
	if a, ok := bigAnswers.Load(n); ok {
		return a.(json.RawMessage)
	}
	a, _ := bigAnswers.LoadOrStore(n, json.RawMessage(`"`+strings.Repeat("x", max(n-2, 0))+`"`))
	return a.(json.RawMessage)
}

// heapInuse returns the heap in use after a collection.
func heapInuse() int64 {
	var m goruntime.MemStats
	goruntime.GC()
	goruntime.ReadMemStats(&m)
	return int64(m.HeapInuse)
}

// TestNeverReadingClientsBounded: 50 clients each ask for 64 answers of 32
// KiB and never read (over in-memory connections, which buffer nothing, in a
// synctest bubble: the measure is taken once every goroutine waits). What
// the server holds for them stays within twice its output budget plus one
// answer per connection (and the small errors that replace the answers refused), measured both as the runtime counts it and as heap in use
// after GC (before the bound: all 3,200 answers, 100 MiB); another client is
// answered meanwhile; and a client that reads at last finds each of its 64
// calls answered, by its result or by an error saying why it was not sent.
func TestNeverReadingClientsBounded(t *testing.T) {
	rpctest.Synctest(t, func(t *testing.T) {
		const hogs, calls, size = 50, 64, 32 << 10
		const budgetLimit, perConn = 4 << 20, 512 << 10
		budget := runtime.NewOutputBudget(budgetLimit)
		dial := pipeServer(t, &rpcnet.Server{Options: runtime.Options{Handler: newService(),
			MaxUnsent: perConn, OutputBudget: budget, TrustResults: true}})
		before := heapInuse()
		var requests strings.Builder
		for i := range calls {
			fmt.Fprintf(&requests, `{"jsonrpc":"2.0","id":%d,"method":"big","params":[%d]}`+"\n", i, size)
		}
		readers := make([]runtime.Framer, hogs)
		for i := range readers {
			nc, err := dial(context.Background(), "pipe", "")
			if err != nil {
				t.Fatal(err)
			}
			defer nc.Close()
			go nc.Write([]byte(requests.String()))
			readers[i] = runtime.NewLineFramer(nc, nc, 1<<20)
		}
		synctest.Wait()
		used, grown := budget.Used(), heapInuse()-before
		t.Logf("%d clients that never read %d answers of %d KiB: %d KiB held as counted, heap in use grew %d KiB",
			hogs, calls, size>>10, used>>10, grown>>10)
		// Twice the budget (connections that filled it first keep what they
		// hold), one answer per connection, and the errors that replace the
		// answers refused (which always go, and are small).
		if limit := int64(2*budgetLimit + hogs*(size+64) + hogs*calls*512); used > limit {
			t.Errorf("the server holds %d bytes for clients that do not read, over %d", used, limit)
		}
		if limit := int64(2*budgetLimit + hogs*size + 16<<20); grown > limit {
			t.Errorf("heap in use grew %d bytes, over %d", grown, limit)
		}

		c, err := rpcnet.Dial(context.Background(), "pipe", "", &rpcnet.DialOptions{Dialer: dial,
			Options: runtime.Options{MaxMessageSize: 1 << 20}})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		var got string
		if err := c.Call(context.Background(), "big", []int{size}, &got); err != nil || len(got) != size-2 {
			t.Fatalf("another client meanwhile: %d bytes, %v", len(got), err)
		}

		results, refused := 0, 0
		for range calls {
			msg, err := readers[0].ReadMessage()
			if err != nil {
				t.Fatalf("after %d results and %d errors: %v", results, refused, err)
			}
			var resp struct {
				Result *string
				Error  *runtime.Error
			}
			if err := json.Unmarshal(msg, &resp); err != nil {
				t.Fatal(err)
			}
			switch {
			case resp.Result != nil && len(*resp.Result) == size-2:
				results++
			case resp.Error != nil && resp.Error.Code == runtime.CodeServerError && strings.Contains(resp.Error.Message, "answer not sent"):
				refused++
			default:
				t.Fatalf("an answer: %.200s", msg)
			}
		}
		t.Logf("the client that read at last: %d results, %d errors", results, refused)
		if refused == 0 || results == 0 {
			t.Fatalf("%d results and %d errors; want both", results, refused)
		}
	})
}
