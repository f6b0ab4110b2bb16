package mcpserver

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp/internal/askhook"
)

// A sealed requestState is base64url (no padding) of
//
//	key id (1 byte) | nonce (12 bytes) | AES-GCM(plaintext, aad)
//
// The key id is the first byte of the SHA-256 of the key, so a state sealed
// by a key that moved within StateKeys still finds it. The additional data
// binds the state to what it was issued for: the method, the digest of the
// request's identifying params and the principal; a state presented with any
// of them different fails to open. The plaintext holds the expiry and the
// answers so far (stateData).
//
// The ciphers come from package askhook, installed by importing package ask:
// only a handler that asks the client for input (through package ask) makes a
// call end with a requestState, so a program without it links no
// cryptography, and every requestState it is sent fails to open, as it would
// with a key that never sealed one.

// defaultStateTTL is how long a requestState stays valid by default.
const defaultStateTTL = 5 * time.Minute

// errBadState answers a requestState that does not verify, has expired, or
// was issued for another request or principal. It says no more, on purpose.
var errBadState = &runtime.Error{Code: runtime.CodeInvalidParams, Message: "invalid params: requestState is invalid or expired"}

// errNoCrypto is what sealing fails with in a program that does not import
// package ask, which no handler can then reach.
var errNoCrypto = errors.New("mcp: no ciphers to seal a requestState: package ask is not imported")

// stateSealer seals and opens requestState. Its ciphers are made on first
// use, so a server that never asks the client for input never pays for them
// (nor for the random key) at start; SetStateKeys replaces them while the
// server runs.
type stateSealer struct {
	ttl time.Duration
	now func() time.Time // the clock; tests replace it

	mu   sync.Mutex
	keys [][]byte                    // as given; nil means one random key
	set  atomic.Pointer[stateKeySet] // made from keys on first use; nil until then
}

// stateKeySet is the ciphers of a key ring: the first seals, all open; none
// without askhook.Crypto.
type stateKeySet struct {
	aeads []askhook.AEAD
	ids   []byte // key id of each
}

// newStateSealer returns a sealer over keys (each 16, 24 or 32 bytes; nil
// means one random 32-byte key). It panics on a key of another length, a
// programmer error like the others NewServer panics on.
func newStateSealer(keys [][]byte, ttl time.Duration) *stateSealer {
	if err := checkStateKeys(keys); err != nil {
		panic(err.Error())
	}
	if ttl <= 0 {
		ttl = defaultStateTTL
	}
	return &stateSealer{keys: keys, ttl: ttl, now: time.Now}
}

// checkStateKeys reports a key of a length AES does not take.
func checkStateKeys(keys [][]byte) error {
	for i, k := range keys {
		switch len(k) {
		case 16, 24, 32:
		default:
			return fmt.Errorf("mcp: StateKeys[%d]: want 16, 24 or 32 bytes, have %d", i, len(k))
		}
	}
	return nil
}

// ciphers returns the current key set, made on first use (none when no
// askhook.Crypto is installed).
func (s *stateSealer) ciphers() *stateKeySet {
	if ks := s.set.Load(); ks != nil {
		return ks
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if ks := s.set.Load(); ks != nil {
		return ks
	}
	ks, err := makeStateKeySet(s.keys)
	if err != nil {
		panic(err.Error())
	}
	s.set.Store(ks)
	return ks
}

// setKeys replaces the keys: the first seals from now on, all open.
func (s *stateSealer) setKeys(keys [][]byte) error {
	if len(keys) == 0 {
		return errors.New("mcp: SetStateKeys: no keys")
	}
	if err := checkStateKeys(keys); err != nil {
		return err
	}
	keys = cloneKeys(keys)
	ks, err := makeStateKeySet(keys)
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.keys = keys
	s.set.Store(ks)
	s.mu.Unlock()
	return nil
}

func cloneKeys(keys [][]byte) [][]byte {
	out := make([][]byte, len(keys))
	for i, k := range keys {
		out[i] = append([]byte(nil), k...)
	}
	return out
}

// makeStateKeySet makes the ciphers of keys (nil: one random key).
func makeStateKeySet(keys [][]byte) (*stateKeySet, error) {
	ks := new(stateKeySet)
	c := askhook.Installed()
	if c == nil {
		return ks, nil
	}
	if len(keys) == 0 {
		k := make([]byte, 32)
		if err := c.Rand(k); err != nil {
			return nil, errors.New("mcp: cannot make a state key: " + err.Error())
		}
		keys = [][]byte{k}
	}
	for i, k := range keys {
		aead, err := c.NewAEAD(k)
		if err != nil {
			return nil, fmt.Errorf("mcp: StateKeys[%d]: %v", i, err)
		}
		sum := c.Sum256(k)
		ks.aeads = append(ks.aeads, aead)
		ks.ids = append(ks.ids, sum[0])
	}
	return ks, nil
}

// stateData is what a requestState carries.
type stateData struct {
	// Expiry, in Unix milliseconds.
	Expiry int64 `json:"e"`
	// Asked maps the key of each input request the result that issued the
	// state made to its method: only answers to these are taken from a retry.
	Asked map[string]string `json:"k,omitempty"`
	// Answers holds the answers given in earlier rounds, by key.
	Answers map[string]json.RawMessage `json:"a,omitempty"`
}

// stateBinding is what a state is bound to: the additional data of its seal.
type stateBinding struct {
	method    string
	digest    [32]byte // SHA-256
	principal string
}

func (b *stateBinding) aad() []byte {
	out := make([]byte, 0, len(b.method)+len(b.principal)+len(b.digest)+8)
	out = binary.BigEndian.AppendUint32(out, uint32(len(b.method)))
	out = append(out, b.method...)
	out = append(out, b.digest[:]...)
	out = binary.BigEndian.AppendUint32(out, uint32(len(b.principal)))
	return append(out, b.principal...)
}

// seal returns the requestState carrying d (whose Expiry it sets) for b.
func (s *stateSealer) seal(b *stateBinding, d *stateData) (string, error) {
	ks := s.ciphers()
	if len(ks.aeads) == 0 {
		return "", errNoCrypto
	}
	d.Expiry = s.now().Add(s.ttl).UnixMilli()
	plain, err := json.Marshal(d)
	if err != nil {
		return "", err
	}
	aead := ks.aeads[0]
	out := make([]byte, 1+aead.NonceSize(), 1+aead.NonceSize()+len(plain)+aead.Overhead())
	out[0] = ks.ids[0]
	if err := askhook.Installed().Rand(out[1:]); err != nil {
		return "", err
	}
	out = aead.Seal(out, out[1:], plain, b.aad())
	return base64.RawURLEncoding.EncodeToString(out), nil
}

// open verifies and decodes state (the raw JSON string of the request's
// requestState member) for b: errBadState unless it was sealed by one of the
// keys for the same binding and has not expired.
func (s *stateSealer) open(state []byte, b *stateBinding) (*stateData, error) {
	str, ok := unquote(state)
	if !ok {
		return nil, runtime.InvalidParams(`"requestState" must be a string`)
	}
	raw, err := base64.RawURLEncoding.Strict().DecodeString(str)
	if err != nil || len(raw) < 1 {
		return nil, errBadState
	}
	ks := s.ciphers()
	aad := b.aad()
	for i, aead := range ks.aeads {
		if ks.ids[i] != raw[0] || len(raw) < 1+aead.NonceSize()+aead.Overhead() {
			continue
		}
		nonce, sealed := raw[1:1+aead.NonceSize()], raw[1+aead.NonceSize():]
		plain, err := aead.Open(nil, nonce, sealed, aad)
		if err != nil {
			continue
		}
		d := new(stateData)
		if json.Unmarshal(plain, d) != nil || s.now().UnixMilli() > d.Expiry {
			return nil, errBadState
		}
		return d, nil
	}
	return nil, errBadState
}
