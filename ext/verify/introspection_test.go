package verify

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttp"
)

func TestIntrospection(t *testing.T) {
	answers := map[string]map[string]any{
		"good":     {"active": true, "sub": "alice", "aud": resource, "scope": "notes.read", "exp": time.Now().Add(time.Hour).Unix(), "iss": "https://as"},
		"inactive": {"active": false},
		"other":    {"active": true, "sub": "alice", "aud": []string{"https://other"}},
		"expired":  {"active": true, "sub": "alice", "aud": resource, "exp": time.Now().Add(-time.Minute).Unix()},
		"issuer":   {"active": true, "sub": "alice", "aud": resource, "iss": "https://evil"},
	}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if id, secret, _ := r.BasicAuth(); id != "rs" || secret != "s3cret" || r.PostFormValue("token_type_hint") != "access_token" {
			w.WriteHeader(401)
			return
		}
		json.NewEncoder(w).Encode(answers[r.PostFormValue("token")])
	}))
	defer ts.Close()
	v, err := NewIntrospection(IntrospectionConfig{URL: ts.URL, ClientID: "rs", ClientSecret: "s3cret", Audience: resource, Issuer: "https://as"})
	if err != nil {
		t.Fatal(err)
	}
	ti, err := v.Verify(context.Background(), "good", nil)
	if err != nil || ti.Subject != "alice" || !slices.Equal(ti.Scopes, []string{"notes.read"}) {
		t.Fatalf("good: %+v %v", ti, err)
	}
	for _, tok := range []string{"inactive", "other", "expired", "issuer", "unknown"} {
		if _, err := v.Verify(context.Background(), tok, nil); !errors.Is(err, mcphttp.ErrInvalidToken) {
			t.Errorf("%s: %v, want ErrInvalidToken", tok, err)
		}
	}
}
