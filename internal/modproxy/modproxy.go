// Package modproxy is a Go module proxy for tests that run the go command
// offline: it serves modules handed to it in memory, answers a chosen
// status (403, as many corporate proxies do for a module they do not know,
// or 404) for module paths under a prefix, and serves every other module
// from a module cache's download directory, noting what that directory
// lacks so that a test can say which modules to download first.
package modproxy

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/mod/module"
	"golang.org/x/mod/semver"
)

// Proxy is an http.Handler speaking the GOPROXY protocol
// (https://go.dev/ref/mod#goproxy-protocol). Set its fields before it
// serves.
type Proxy struct {
	// CacheDir is a module cache's download directory,
	// $GOMODCACHE/cache/download, whose layout is the protocol's: what it
	// holds is served as is. "" serves nothing from a cache.
	CacheDir string
	// Refuse maps a module path prefix ("github.com/rpcgen/") to the
	// status answered for any module under it that was not added.
	Refuse map[string]int

	mu      sync.Mutex
	mods    map[string]map[string]Module // path, version
	refused []string
	missing []string
}

// A Module is one version of a module as the proxy serves it.
type Module struct {
	Mod  []byte    // the go.mod file
	Zip  []byte    // the module zip (golang.org/x/mod/zip)
	Time time.Time // the version's time, for .info
}

// Add serves m as version of the module at path, ahead of the cache and
// of Refuse.
func (p *Proxy) Add(path, version string, m Module) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.mods == nil {
		p.mods = map[string]map[string]Module{}
	}
	if p.mods[path] == nil {
		p.mods[path] = map[string]Module{}
	}
	p.mods[path][version] = m
}

// Refused lists the requests answered with a Refuse status, in order.
func (p *Proxy) Refused() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.refused)
}

// Missing lists the files of module versions asked of the cache that it
// does not hold, as module@version and the file's kind
// ("golang.org/x/sys@v0.48.0 .zip"), each once.
func (p *Proxy) Missing() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.missing)
}

// ServeHTTP answers one GOPROXY request.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	escPath, file, ok := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/@")
	modPath, err := module.UnescapePath(escPath)
	if !ok || err != nil {
		http.NotFound(w, r)
		return
	}
	if p.serveAdded(w, r, modPath, file) {
		return
	}
	for prefix, status := range p.Refuse {
		if strings.HasPrefix(modPath+"/", prefix) {
			p.mu.Lock()
			p.refused = append(p.refused, r.URL.Path)
			p.mu.Unlock()
			http.Error(w, "module "+modPath+" is not available here", status)
			return
		}
	}
	p.serveCache(w, r, escPath, modPath, file)
}

// serveAdded answers from the modules added, reporting whether modPath is
// one of them.
func (p *Proxy) serveAdded(w http.ResponseWriter, r *http.Request, modPath, file string) bool {
	p.mu.Lock()
	versions, ok := p.mods[modPath]
	p.mu.Unlock()
	if !ok {
		return false
	}
	switch {
	case file == "v/list":
		var list []string
		for v := range versions {
			list = append(list, v)
		}
		semver.Sort(list)
		fmt.Fprint(w, strings.Join(list, "\n")+"\n")
		return true
	case file == "latest":
		var best string
		for v := range versions {
			if best == "" || semver.Compare(v, best) > 0 {
				best = v
			}
		}
		writeInfo(w, best, versions[best].Time)
		return true
	}
	name, ok := strings.CutPrefix(file, "v/")
	ext := path.Ext(name)
	v, err := module.UnescapeVersion(strings.TrimSuffix(name, ext))
	m, found := versions[v]
	if !ok || err != nil || !found {
		http.NotFound(w, r)
		return true
	}
	switch ext {
	case ".info":
		writeInfo(w, v, m.Time)
	case ".mod":
		_, _ = w.Write(m.Mod)
	case ".zip":
		w.Header().Set("Content-Type", "application/zip")
		_, _ = w.Write(m.Zip)
	default:
		http.NotFound(w, r)
	}
	return true
}

func writeInfo(w http.ResponseWriter, version string, t time.Time) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(struct {
		Version string
		Time    time.Time
	}{version, t})
}

// serveCache answers from the cache directory, noting a file it lacks.
func (p *Proxy) serveCache(w http.ResponseWriter, r *http.Request, escPath, modPath, file string) {
	name := filepath.Join(p.CacheDir, filepath.FromSlash(escPath), "@"+filepath.FromSlash(file))
	if p.CacheDir == "" || strings.Contains(file, "..") {
		http.NotFound(w, r)
		return
	}
	f, err := os.Open(name)
	if err == nil {
		defer f.Close()
		if info, err := f.Stat(); err == nil && info.Mode().IsRegular() {
			http.ServeContent(w, r, "", info.ModTime(), f)
			return
		}
	}
	// A version's files are what a build needs; a list or a latest that
	// fails is the answer to a lookup, not a gap in the cache, and so is
	// the .info of a path with no slash: the go command asks about every
	// prefix of a package path, github.com included.
	if v, ok := strings.CutPrefix(file, "v/"); ok && v != "list" {
		ext := path.Ext(v)
		if ver, err := module.UnescapeVersion(strings.TrimSuffix(v, ext)); err == nil && (ext != ".info" || strings.Contains(modPath, "/")) {
			what := modPath + "@" + ver + " " + ext
			p.mu.Lock()
			if !slices.Contains(p.missing, what) {
				p.missing = append(p.missing, what)
			}
			p.mu.Unlock()
		}
	}
	http.NotFound(w, r)
}
