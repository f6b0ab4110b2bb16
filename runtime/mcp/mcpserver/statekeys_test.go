package mcpserver

import (
	"encoding/base64"
	"strings"
	"sync"
	"testing"
)

func TestParseStateKeys(t *testing.T) {
	k32 := make([]byte, 32)
	for i := range k32 {
		k32[i] = byte(i * 7)
	}
	k16 := []byte("0123456789abcdef")
	std, url := base64.StdEncoding.EncodeToString(k32), base64.RawURLEncoding.EncodeToString(k32)
	if !strings.ContainsAny(url, "-_") {
		t.Fatal("the test key has no URL-alphabet character")
	}
	short := base64.StdEncoding.EncodeToString(k16)
	for _, tc := range []struct {
		name, text string
		want       [][]byte
	}{
		{"file", "# the ring\n" + std + "   # signs\n\n" + short + "\n", [][]byte{k32, k16}},
		{"env", short + "," + url, [][]byte{k16, k32}},
		{"unpadded, CRLF, spaces", strings.TrimRight(std, "=") + "\r\n  " + short + " " + url + "\r\n", [][]byte{k32, k16, k32}},
	} {
		got, err := ParseStateKeys(tc.text)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if len(got) != len(tc.want) {
			t.Errorf("%s: %d keys, want %d", tc.name, len(got), len(tc.want))
			continue
		}
		for i := range got {
			if string(got[i]) != string(tc.want[i]) {
				t.Errorf("%s: key %d differs", tc.name, i)
			}
		}
	}
	for _, tc := range []struct{ text, want string }{
		{"", "no keys"},
		{"# nothing\n\n", "no keys"},
		{std + "\n" + base64.StdEncoding.EncodeToString(make([]byte, 20)), "line 2: key 2: want 16, 24 or 32 bytes, have 20"},
		{std + ",not*base64", "line 1: key 2: not base64"},
	} {
		if _, err := ParseStateKeys(tc.text); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseStateKeys(%q) = %v, want an error with %q", tc.text, err, tc.want)
		}
	}
}

// Three replicas rotate their shared ring while they serve, in the three
// steps ParseStateKeys documents, a client's retry landing on another
// replica than its first round each time: every retry completes.
func TestSetStateKeysRotation(t *testing.T) {
	oldKey, newKey := []byte("0123456789abcdef0123456789abcdef"), []byte("fedcba9876543210fedcba9876543210")
	var replicas []*modernClient
	for range 3 {
		replicas = append(replicas, newModernClient(t, newInputServer(nil, &Options{StateKeys: [][]byte{oldKey}})))
	}
	roundTrip := func() {
		t.Helper()
		for i, first := range replicas {
			state := first.inputRequired(first.call("ask", `{}`, ""), askRequest)
			other := replicas[(i+1)%len(replicas)]
			wantComplete(t, other.call("ask", `{}`, adaAnswer+","+stateMember(state)), `{"action":"accept","content":{"name":"Ada"}}`)
		}
	}
	setAll := func(keys ...[]byte) {
		t.Helper()
		for _, r := range replicas {
			if err := r.ss.srv.SetStateKeys(keys); err != nil {
				t.Fatal(err)
			}
		}
	}
	roundTrip()
	pending := replicas[0].inputRequired(replicas[0].call("ask", `{}`, ""), askRequest) // sealed with the old key
	setAll(oldKey, newKey)                                                              // 1: the new key opens
	roundTrip()
	setAll(newKey, oldKey) // 2: the new key seals
	roundTrip()
	wantComplete(t, replicas[2].call("ask", `{}`, adaAnswer+","+stateMember(pending)), `{"action":"accept","content":{"name":"Ada"}}`)
	setAll(newKey) // 3: the old key is retired
	roundTrip()
	wantErrorReply(t, replicas[1].call("ask", `{}`, adaAnswer+","+stateMember(pending)), badState)

	// A replica that seals with a key the others do not have yet (step 1
	// skipped) makes retries fail there: why the steps are three.
	third := []byte("abcdefghijklmnop")
	if err := replicas[0].ss.srv.SetStateKeys([][]byte{third, newKey}); err != nil {
		t.Fatal(err)
	}
	state := replicas[0].inputRequired(replicas[0].call("ask", `{}`, ""), askRequest)
	wantErrorReply(t, replicas[1].call("ask", `{}`, adaAnswer+","+stateMember(state)), badState)
}

func TestSetStateKeysRefusesBadRings(t *testing.T) {
	srv := newInputServer(nil, &Options{StateKeys: [][]byte{make([]byte, 32)}})
	c := &modernClient{t: t, ss: srv.NewSession(), caps: allCaps}
	state := c.inputRequired(c.call("ask", `{}`, ""), askRequest)
	for _, keys := range [][][]byte{nil, {}, {make([]byte, 32), make([]byte, 15)}} {
		if err := srv.SetStateKeys(keys); err == nil {
			t.Errorf("SetStateKeys(%d keys) accepted a bad ring", len(keys))
		}
	}
	// Nothing changed: the state still opens.
	wantComplete(t, c.call("ask", `{}`, adaAnswer+","+stateMember(state)), `{"action":"accept","content":{"name":"Ada"}}`)
}

// Sealing and opening while the ring changes is safe (go test -race).
func TestSetStateKeysConcurrent(t *testing.T) {
	k1, k2 := make([]byte, 32), make([]byte, 32)
	k2[0] = 1
	srv := newInputServer(nil, &Options{StateKeys: [][]byte{k1}})
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			c := &modernClient{t: t, ss: srv.NewSession(), caps: allCaps}
			for range 50 {
				state := c.inputRequired(c.call("ask", `{}`, ""), askRequest)
				wantComplete(t, c.call("ask", `{}`, adaAnswer+","+stateMember(state)), `{"action":"accept","content":{"name":"Ada"}}`)
			}
		})
	}
	for i := range 100 {
		if err := srv.SetStateKeys([][]byte{[][]byte{k1, k2}[i%2], [][]byte{k2, k1}[i%2]}); err != nil {
			t.Fatal(err)
		}
	}
	wg.Wait()
}
