package mcpserver

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestSealOpen(t *testing.T) {
	s := newStateSealer(nil, 0)
	if s.ttl != defaultStateTTL {
		t.Errorf("default ttl %v", s.ttl)
	}
	b := &stateBinding{method: "tools/call", principal: "alice"}
	b.digest[0] = 1
	d := &stateData{Asked: map[string]string{"roots/list#0": "roots/list"}, Answers: map[string]json.RawMessage{"x#0": json.RawMessage(`{"a":1}`)}}
	state, err := s.seal(b, d)
	if err != nil {
		t.Fatal(err)
	}
	if strings.ContainsAny(state, "+/=") {
		t.Errorf("state %q is not unpadded base64url", state)
	}
	if strings.Contains(state, "roots") {
		t.Error("state shows its contents")
	}
	quoted := []byte(`"` + state + `"`)
	got, err := s.open(quoted, b)
	if err != nil {
		t.Fatal(err)
	}
	if got.Asked["roots/list#0"] != "roots/list" || string(got.Answers["x#0"]) != `{"a":1}` || got.Expiry != d.Expiry {
		t.Errorf("opened %+v", got)
	}
	// Each part of the binding counts.
	for name, other := range map[string]*stateBinding{
		"method":    {method: "prompts/get", digest: b.digest, principal: "alice"},
		"digest":    {method: "tools/call", principal: "alice"},
		"principal": {method: "tools/call", digest: b.digest, principal: "alicf"},
		"ambiguous": {method: "tools/cal", digest: b.digest, principal: "alice"},
	} {
		if _, err := s.open(quoted, other); err != errBadState {
			t.Errorf("%s: open = %v, want errBadState", name, err)
		}
	}
	// Every bit counts.
	raw, _ := base64.RawURLEncoding.DecodeString(state)
	for i := range raw {
		bad := append([]byte(nil), raw...)
		bad[i] ^= 0x10
		if _, err := s.open([]byte(`"`+base64.RawURLEncoding.EncodeToString(bad)+`"`), b); err != errBadState {
			t.Fatalf("byte %d flipped: open = %v", i, err)
		}
	}
	// Two seals of the same data differ (a fresh nonce each).
	state2, _ := s.seal(b, d)
	if state2 == state {
		t.Error("two seals are equal")
	}
}

func TestSealExpiry(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	s := newStateSealer([][]byte{make([]byte, 16)}, 30*time.Second)
	s.now = func() time.Time { return now }
	b := &stateBinding{method: "resources/read"}
	state, _ := s.seal(b, &stateData{})
	q := []byte(`"` + state + `"`)
	now = now.Add(30 * time.Second)
	if _, err := s.open(q, b); err != nil {
		t.Errorf("at expiry: %v", err)
	}
	now = now.Add(time.Millisecond)
	if _, err := s.open(q, b); err != errBadState {
		t.Errorf("after expiry: %v", err)
	}
}

func TestSealRotation(t *testing.T) {
	k1, k2, k3 := make([]byte, 32), make([]byte, 24), make([]byte, 16)
	k1[0], k2[0], k3[0] = 1, 2, 3
	b := &stateBinding{method: "tools/call"}
	old := newStateSealer([][]byte{k1}, 0)
	state, _ := old.seal(b, &stateData{})
	q := []byte(`"` + state + `"`)
	for _, keys := range [][][]byte{{k2, k1}, {k3, k2, k1}, {k1, k3}} {
		if _, err := newStateSealer(keys, 0).open(q, b); err != nil {
			t.Errorf("%d keys: %v", len(keys), err)
		}
	}
	if _, err := newStateSealer([][]byte{k2, k3}, 0).open(q, b); err != errBadState {
		t.Errorf("without the key: %v", err)
	}
	// The first key seals.
	rotated := newStateSealer([][]byte{k2, k1}, 0)
	state, _ = rotated.seal(b, &stateData{})
	if _, err := newStateSealer([][]byte{k2}, 0).open([]byte(`"`+state+`"`), b); err != nil {
		t.Errorf("sealed by the first key: %v", err)
	}
}

func TestSealBadKey(t *testing.T) {
	defer func() {
		if v := recover(); v == nil || !strings.Contains(v.(string), "StateKeys[1]") {
			t.Errorf("panic %v", v)
		}
	}()
	newStateSealer([][]byte{make([]byte, 16), make([]byte, 20)}, 0)
}

func TestCanonicalJSON(t *testing.T) {
	for _, tc := range [][2]string{
		{``, `{}`},
		{`null`, `{}`},
		{`{ "b":1, "a":[ 1.50, "x\u0041" ] }`, `{"a":[1.50,"xA"],"b":1}`},
		{`{"n":12345678901234567890}`, `{"n":12345678901234567890}`},
	} {
		if got := string(canonicalJSON([]byte(tc[0]))); got != tc[1] {
			t.Errorf("canonicalJSON(%s) = %s, want %s", tc[0], got, tc[1])
		}
	}
}
