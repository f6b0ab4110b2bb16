package verify

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"time"
)

// ReplayCache remembers the DPoP proofs a server accepted, so that each is
// accepted once (RFC 9449 §11.1). It must be safe for concurrent use.
type ReplayCache interface {
	// Seen records the proof jti of the key whose thumbprint is jkt until
	// expires and reports whether it was recorded already. An error
	// refuses the proof; ErrTooManyProofs says the key made more proofs
	// than the cache keeps for one key.
	Seen(ctx context.Context, jkt, jti string, expires time.Time) (bool, error)
}

// ErrTooManyProofs is the error of a ReplayCache that keeps no more proofs
// of a key: the proof is refused, and the client that made too many is
// told to slow down.
var ErrTooManyProofs = errors.New("verify: too many DPoP proofs of one key within the replay window")

// NewMemoryReplayCache returns a ReplayCache in memory holding at most max
// proofs (0: 262,144, about 30 MiB) and at most perKey of one key (0:
// 32,768, some 100 a second over a 5-minute window). A key over its share
// is refused (ErrTooManyProofs); when the whole cache is full, its oldest
// entries are dropped first, expired or not, so that memory stays bounded
// under any flood (a proof dropped before its expiry could then be
// replayed). Each replica has its own: see DPoPConfig.Replay.
func NewMemoryReplayCache(max, perKey int) ReplayCache {
	if max <= 0 {
		max = 1 << 18
	}
	if perKey <= 0 {
		perKey = 1 << 15
	}
	return &memoryReplay{max: max, perKey: perKey, seen: map[[32]byte]time.Time{}, keys: map[string]int{}}
}

type memoryReplay struct {
	max, perKey int

	mu    sync.Mutex
	seen  map[[32]byte]time.Time // expiry by hash of (jkt, jti)
	keys  map[string]int         // entries by jkt
	queue []replayEntry          // in the order recorded
	head  int                    // queue[head:] are live
}

type replayEntry struct {
	id      [32]byte
	jkt     string
	expires time.Time
}

func (m *memoryReplay) Seen(_ context.Context, jkt, jti string, expires time.Time) (bool, error) {
	id := sha256.Sum256([]byte(jkt + "\x00" + jti))
	m.mu.Lock()
	defer m.mu.Unlock()
	t := now()
	// Drop the expired entries at the front, and the oldest while full.
	for m.head < len(m.queue) && (!m.queue[m.head].expires.After(t) || len(m.seen) >= m.max) {
		m.drop()
	}
	if exp, ok := m.seen[id]; ok && exp.After(t) {
		return true, nil
	}
	if m.keys[jkt] >= m.perKey {
		return false, ErrTooManyProofs
	}
	m.seen[id] = expires
	m.keys[jkt]++
	m.queue = append(m.queue, replayEntry{id: id, jkt: jkt, expires: expires})
	if m.head > len(m.queue)/2 && m.head > 1024 {
		m.queue = append(m.queue[:0:0], m.queue[m.head:]...)
		m.head = 0
	}
	return false, nil
}

// drop forgets the oldest entry; m.mu is held.
func (m *memoryReplay) drop() {
	e := m.queue[m.head]
	m.queue[m.head] = replayEntry{}
	m.head++
	if exp, ok := m.seen[e.id]; ok && exp.Equal(e.expires) {
		delete(m.seen, e.id)
	}
	if m.keys[e.jkt]--; m.keys[e.jkt] <= 0 {
		delete(m.keys, e.jkt)
	}
}

// nonceMaker makes and checks the server's DPoP nonces (RFC 9449 §9):
// the time it was made and an HMAC of it, so that any replica with the key
// checks them without state.
type nonceMaker struct {
	key      []byte
	lifetime time.Duration
}

func newNonceMaker(key []byte, lifetime time.Duration) (*nonceMaker, error) {
	if key == nil {
		key = make([]byte, 32)
		rand.Read(key)
	} else if len(key) < 32 {
		return nil, fmt.Errorf("verify: DPoPConfig.NonceKey has %d bytes, fewer than 32", len(key))
	}
	if lifetime <= 0 {
		lifetime = 5 * time.Minute
	}
	return &nonceMaker{key: key, lifetime: lifetime}, nil
}

const nonceMACSize = 16

// make returns a nonce made at t.
func (n *nonceMaker) make(t time.Time) string {
	b := binary.BigEndian.AppendUint64(make([]byte, 0, 8+nonceMACSize), uint64(t.Unix()))
	b = append(b, n.mac(b[:8])...)
	return base64.RawURLEncoding.EncodeToString(b)
}

// valid reports whether s is a nonce of n's key made within its lifetime
// before t.
func (n *nonceMaker) valid(s string, t time.Time) bool {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || len(b) != 8+nonceMACSize || !hmac.Equal(b[8:], n.mac(b[:8])) {
		return false
	}
	made := time.Unix(int64(binary.BigEndian.Uint64(b[:8])), 0)
	return !made.After(t.Add(time.Second)) && t.Sub(made) <= n.lifetime
}

func (n *nonceMaker) mac(b []byte) []byte {
	h := hmac.New(sha256.New, n.key)
	h.Write([]byte("rpcgen DPoP nonce\x00"))
	h.Write(b)
	return h.Sum(nil)[:nonceMACSize]
}
