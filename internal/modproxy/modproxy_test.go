package modproxy

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(body)
}

// TestProxy: added modules first, then refusals, then the cache
// directory by its escaped paths; what the cache lacks is noted once.
func TestProxy(t *testing.T) {
	cache := t.TempDir()
	dir := filepath.Join(cache, "github.com", "!burnt!sushi", "toml", "@v")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string]string{"list": "v1.0.0\n", "v1.0.0.mod": "module github.com/BurntSushi/toml\n", "v1.0.0.info": `{"Version":"v1.0.0"}`} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p := &Proxy{CacheDir: cache, Refuse: map[string]int{"example.com/corp/": http.StatusForbidden}}
	when := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	p.Add("example.com/corp/lib", "v0.2.0", Module{Mod: []byte("module example.com/corp/lib\n"), Zip: []byte("PK zip"), Time: when})
	p.Add("example.com/corp/lib", "v0.10.0", Module{Mod: []byte("module example.com/corp/lib\n"), Zip: []byte("PK zip 10"), Time: when})
	srv := httptest.NewServer(p)
	defer srv.Close()

	for _, tt := range []struct {
		path   string
		status int
		body   string
	}{
		{"/github.com/!burnt!sushi/toml/@v/list", 200, "v1.0.0\n"},
		{"/github.com/!burnt!sushi/toml/@v/v1.0.0.mod", 200, "module github.com/BurntSushi/toml\n"},
		{"/github.com/!burnt!sushi/toml/@v/v1.1.0.zip", 404, ""},
		{"/github.com/!burnt!sushi/toml/@v/v1.1.0.zip", 404, ""},
		{"/golang.org/x/sys/@v/v0.48.0.info", 404, ""},
		{"/github.com/@v/v0.48.0.info", 404, ""},         // a lookup of a prefix: not noted
		{"/github.com/BurntSushi/toml/@v/list", 404, ""}, // not escaped: no such module path
		{"/example.com/corp/lib/@v/list", 200, "v0.2.0\nv0.10.0\n"},
		{"/example.com/corp/lib/@latest", 200, `{"Version":"v0.10.0","Time":"2026-01-02T03:04:05Z"}` + "\n"},
		{"/example.com/corp/lib/@v/v0.2.0.info", 200, `{"Version":"v0.2.0","Time":"2026-01-02T03:04:05Z"}` + "\n"},
		{"/example.com/corp/lib/@v/v0.2.0.mod", 200, "module example.com/corp/lib\n"},
		{"/example.com/corp/lib/@v/v0.10.0.zip", 200, "PK zip 10"},
		{"/example.com/corp/lib/@v/v0.3.0.zip", 404, ""},
		{"/example.com/corp/lib/sub/@v/list", 403, ""},
		{"/example.com/corp/@v/v0.2.0.info", 403, ""},
		{"/example.com/other/@v/list", 404, ""},
	} {
		status, body := get(t, srv.URL+tt.path)
		if status != tt.status || (tt.body != "" && body != tt.body) {
			t.Errorf("GET %s: %d %q, want %d %q", tt.path, status, body, tt.status, tt.body)
		}
	}
	if want := []string{"/example.com/corp/lib/sub/@v/list", "/example.com/corp/@v/v0.2.0.info"}; !reflect.DeepEqual(p.Refused(), want) {
		t.Errorf("Refused() = %q, want %q", p.Refused(), want)
	}
	want := []string{"github.com/BurntSushi/toml@v1.1.0 .zip", "golang.org/x/sys@v0.48.0 .info"}
	if got := p.Missing(); !reflect.DeepEqual(got, want) {
		t.Errorf("Missing() = %q, want %q", got, want)
	}
	if status, _ := get(t, srv.URL+"/github.com/!burnt!sushi/toml/@v/../../../../etc/passwd"); status == 200 {
		t.Error("served a path outside the cache")
	}
	if strings.Contains(strings.Join(p.Missing(), " "), "passwd") {
		t.Error("noted a path outside the cache as missing")
	}
}
