package replicatest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttp"
)

// Faulty wraps a SessionStore with a switch: Fail makes every call fail at
// once, Hang makes every call wait until its context ends, as a backend
// that is down or does not answer would.
type Faulty struct {
	mcphttp.SessionStore
	mode atomic.Int32
}

const (
	faultNone = iota
	faultFail
	faultHang
)

var errDown = errors.New("replicatest: the store is down")

// Fail, Hang and Heal switch the fault.
func (f *Faulty) Fail() { f.mode.Store(faultFail) }
func (f *Faulty) Hang() { f.mode.Store(faultHang) }
func (f *Faulty) Heal() { f.mode.Store(faultNone) }

func (f *Faulty) fault(ctx context.Context) error {
	switch f.mode.Load() {
	case faultFail:
		return errDown
	case faultHang:
		<-ctx.Done()
		return ctx.Err()
	}
	return nil
}

func (f *Faulty) Create(ctx context.Context, s *mcphttp.StoredSession, max int, ttl time.Duration) error {
	if err := f.fault(ctx); err != nil {
		return err
	}
	return f.SessionStore.Create(ctx, s, max, ttl)
}

func (f *Faulty) Get(ctx context.Context, id string, ttl time.Duration) (*mcphttp.StoredSession, error) {
	if err := f.fault(ctx); err != nil {
		return nil, err
	}
	return f.SessionStore.Get(ctx, id, ttl)
}

func (f *Faulty) Touch(ctx context.Context, id string, ttl time.Duration) (mcp.LogLevel, error) {
	if err := f.fault(ctx); err != nil {
		return "", err
	}
	return f.SessionStore.Touch(ctx, id, ttl)
}

func (f *Faulty) Update(ctx context.Context, id string, u mcphttp.SessionUpdate) error {
	if err := f.fault(ctx); err != nil {
		return err
	}
	return f.SessionStore.Update(ctx, id, u)
}

// StoreDown: with the session store failing or hanging, a session's
// requests get 503 with a JSON-RPC error within the store timeout, never
// a hang; 2026-07-28 requests, which need no shared state, are served; and
// the session works again once the store is back.
func StoreDown(t *testing.T, nb NewBackend) {
	var faults []*Faulty
	wrapped := func(t *testing.T) func() Backend {
		replica := nb(t)
		return func() Backend {
			b := replica()
			f := &Faulty{SessionStore: b.Sessions}
			faults = append(faults, f)
			b.Sessions = f
			return b
		}
	}
	const timeout = 300 * time.Millisecond
	c := NewCluster(t, wrapped, mcphttp.Options{StoreTimeout: timeout})
	w := c.NewWire(t)
	w.Initialize(mcp.Version20251125, `{}`)
	modern := `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"whoami","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	for _, fault := range []string{"fail", "hang"} {
		for _, f := range faults {
			if fault == "fail" {
				f.Fail()
			} else {
				f.Hang()
			}
		}
		for k := range Replicas {
			start := time.Now()
			st, body := w.Call(40+k, "whoami", `{}`)
			if took := time.Since(start); took > timeout+2*time.Second {
				t.Errorf("%s: the answer took %v", fault, took)
			}
			if st != http.StatusServiceUnavailable || !strings.Contains(string(body), `"error"`) || !strings.Contains(string(body), fmt.Sprintf(`"id":%d,`, 40+k)) {
				t.Errorf("%s: a session's call got %d %s, want 503 with a JSON-RPC error naming the request", fault, st, body)
			}
		}
		x := c.NewWire(t)
		x.Version = mcp.Version20260728
		resp := x.Do(http.MethodPost, modern, "Mcp-Method", "tools/call", "Mcp-Name", "whoami")
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if st := resp.StatusCode; st != http.StatusOK || !strings.Contains(string(body), `replica`) {
			t.Errorf("%s: a 2026-07-28 call got %d %s, want it served", fault, st, body)
		}
	}
	for _, f := range faults {
		f.Heal()
	}
	for k := range Replicas {
		if st, body := w.Call(50+k, "whoami", `{}`); st != http.StatusOK {
			t.Errorf("after the store came back: %d %s", st, body)
		}
	}
}
