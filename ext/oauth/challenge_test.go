package oauth

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttpclient"
)

// TestParseChallengesMalformed: fields a hostile or broken server sends
// are read as far as they are well formed, and never make the parser step
// past the end of the field.
func TestParseChallengesMalformed(t *testing.T) {
	for _, tc := range []struct {
		field string
		want  []challenge
	}{
		{`Bearer resource_metadata="`, []challenge{{"Bearer", map[string]string{}}}},
		{`Bearer resource_metadata="https://r/x`, []challenge{{"Bearer", map[string]string{}}}},
		{`Bearer error="invalid_token", resource_metadata="https://r/x`, []challenge{{"Bearer", map[string]string{"error": "invalid_token"}}}},
		{`Bearer scope="a\`, []challenge{{"Bearer", map[string]string{}}}},
		{`Bearer scope="a\"b"`, []challenge{{"Bearer", map[string]string{"scope": `a"b`}}}},
		{`Bearer scope=`, []challenge{{"Bearer", map[string]string{"scope": ""}}}},
		{`Bearer realm = "x" , scope= a`, []challenge{{"Bearer", map[string]string{"realm": "x", "scope": "a"}}}},
		{`Bearer ="x"`, []challenge{{"Bearer", map[string]string{}}}},
		{`"`, nil},
		{`Bearer`, []challenge{{"Bearer", map[string]string{}}}},
		{`Basic realm="a, Bearer x=y`, nil},
		{`DPoP algs="ES256", Bearer error="x`, []challenge{{"DPoP", map[string]string{"algs": "ES256"}}, {"Bearer", map[string]string{}}}},
	} {
		h := http.Header{"Www-Authenticate": {tc.field}}
		got := parseChallenges(h)
		if !slices.EqualFunc(got, tc.want, func(a, b challenge) bool {
			return a.scheme == b.scheme && len(a.params) == len(b.params) && equalParams(a.params, b.params)
		}) {
			t.Errorf("%s\n got %+v\nwant %+v", tc.field, got, tc.want)
		}
	}
}

func equalParams(a, b map[string]string) bool {
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// TestConnectUnterminatedChallenge: a server answering 401 with a
// resource_metadata whose quote never closes made mcphttpclient.Connect panic in
// the challenge parser, ending the process. Now the broken parameter is
// ignored: the flow goes on to the well-known metadata URL, and Connect
// returns the flow's error.
func TestConnectUnterminatedChallenge(t *testing.T) {
	var mu sync.Mutex
	var paths []string
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		paths = append(paths, r.Method+" "+r.URL.Path)
		mu.Unlock()
		if r.URL.Path == "/mcp" {
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		http.NotFound(w, r)
	}))
	defer ts.Close()
	a, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := mcphttpclient.Connect(context.Background(), ts.URL+"/mcp", &mcphttpclient.Options{Authorizer: a})
	if err == nil {
		c.Close()
		t.Fatal("Connect succeeded against a server that refuses every request")
	}
	if !strings.Contains(err.Error(), "authorization") {
		t.Errorf("error %q, want the authorization flow's", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices.Contains(paths, "GET /.well-known/oauth-protected-resource/mcp") {
		t.Errorf("requests %v: want the well-known resource metadata tried in place of the broken parameter", paths)
	}
}

// FuzzParseChallenges: any WWW-Authenticate field is parsed without a
// panic, into Bearer and DPoP challenges only, and a challenge written back
// with every value quoted parses to the same challenge. The seeds are in
// testdata/fuzz/FuzzParseChallenges (the unterminated quote among them).
func FuzzParseChallenges(f *testing.F) {
	f.Fuzz(func(t *testing.T, field string) {
		cs := parseChallenges(http.Header{"Www-Authenticate": {field}})
		for _, c := range cs {
			if !strings.EqualFold(c.scheme, "Bearer") && !strings.EqualFold(c.scheme, "DPoP") {
				t.Fatalf("scheme %q returned", c.scheme)
			}
			var b strings.Builder
			b.WriteString(c.scheme)
			names := make([]string, 0, len(c.params))
			for k := range c.params {
				names = append(names, k)
			}
			slices.Sort(names)
			for i, k := range names {
				if i > 0 {
					b.WriteByte(',')
				}
				b.WriteString(" " + k + `="`)
				for _, ch := range []byte(c.params[k]) {
					if ch == '"' || ch == '\\' {
						b.WriteByte('\\')
					}
					b.WriteByte(ch)
				}
				b.WriteByte('"')
			}
			again := parseChallenges(http.Header{"Www-Authenticate": {b.String()}})
			if len(again) != 1 || again[0].scheme != c.scheme || len(again[0].params) != len(c.params) || !equalParams(again[0].params, c.params) {
				t.Fatalf("%q parsed to %+v; written back as %q it parses to %+v", field, c, b.String(), again)
			}
		}
	})
}
