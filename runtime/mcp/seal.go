package mcp

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
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
// (nor for the random key) at start.
type stateSealer struct {
	keys [][]byte // as given; nil means one random key
	ttl  time.Duration
	now  func() time.Time // the clock; tests replace it

	once  sync.Once
	aeads []askhook.AEAD // the first seals; all open; none without askhook.Crypto
	ids   []byte         // key id of each
}

// newStateSealer returns a sealer over keys (each 16, 24 or 32 bytes; nil
// means one random 32-byte key). It panics on a key of another length, a
// programmer error like the others NewServer panics on.
func newStateSealer(keys [][]byte, ttl time.Duration) *stateSealer {
	for i, k := range keys {
		switch len(k) {
		case 16, 24, 32:
		default:
			panic(fmt.Sprintf("mcp: StateKeys[%d]: want 16, 24 or 32 bytes, have %d", i, len(k)))
		}
	}
	if ttl <= 0 {
		ttl = defaultStateTTL
	}
	return &stateSealer{keys: keys, ttl: ttl, now: time.Now}
}

// ciphers makes the AEADs, once; it makes none when no askhook.Crypto is
// installed.
func (s *stateSealer) ciphers() {
	s.once.Do(func() {
		c := askhook.Installed()
		if c == nil {
			return
		}
		keys := s.keys
		if len(keys) == 0 {
			k := make([]byte, 32)
			if err := c.Rand(k); err != nil {
				panic("mcp: cannot make a state key: " + err.Error())
			}
			keys = [][]byte{k}
		}
		for i, k := range keys {
			aead, err := c.NewAEAD(k)
			if err != nil {
				panic(fmt.Sprintf("mcp: StateKeys[%d]: %v", i, err))
			}
			sum := c.Sum256(k)
			s.aeads = append(s.aeads, aead)
			s.ids = append(s.ids, sum[0])
		}
	})
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
	s.ciphers()
	if len(s.aeads) == 0 {
		return "", errNoCrypto
	}
	d.Expiry = s.now().Add(s.ttl).UnixMilli()
	plain, err := json.Marshal(d)
	if err != nil {
		return "", err
	}
	aead := s.aeads[0]
	out := make([]byte, 1+aead.NonceSize(), 1+aead.NonceSize()+len(plain)+aead.Overhead())
	out[0] = s.ids[0]
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
	s.ciphers()
	aad := b.aad()
	for i, aead := range s.aeads {
		if s.ids[i] != raw[0] || len(raw) < 1+aead.NonceSize()+aead.Overhead() {
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
