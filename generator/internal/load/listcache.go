package load

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// The list cache keeps what go list -find said of a package (its name,
// import path, Go files and Go version), so that loadSplit runs go list
// once, for the dependencies, when none of what decides that answer has
// changed. For a module with many requirements, go list -find spends
// 200 ms loading the module graph on two cores, as long as the rest of the
// load.
//
// The key is a digest of everything go list's answer depends on:
//   - the directory and the build tags;
//   - the go command: the executable found in PATH (path, size, modification
//     time) and the environment variables that configure it (GO*, CGO_*),
//     and the go env file;
//   - each go.mod and go.work file in the directory and every directory
//     above it, by content: they decide the module, its path and Go version,
//     and the toolchain;
//   - each Go file go/build selects, by name and by its text up to the end
//     of its package clause: build constraints and the package name.
//
// A change inside a file below its package clause, which is every edit of
// code, keeps the key. An entry is used only when loadSplit then finds go
// list's files equal to the ones go/build selected, as for a fresh answer.

const listCacheVersion = "rpcgen-list-1"

// listFingerprint returns the list cache key for the package in dir whose
// files predictFiles selected. It reports false when something the key
// needs cannot be read.
func listFingerprint(dir string, buildTags []string, files []predictedFile) (string, bool) {
	h := sha256.New()
	field := func(s string) { h.Write([]byte(strconv.Itoa(len(s)) + ":" + s)) }
	field(listCacheVersion)
	field(dir)
	field(strings.Join(buildTags, ","))
	goCmd, err := exec.LookPath("go")
	if err != nil {
		return "", false
	}
	fi, err := os.Stat(goCmd)
	if err != nil {
		return "", false
	}
	field(goCmd)
	field(strconv.FormatInt(fi.Size(), 10) + " " + strconv.FormatInt(fi.ModTime().UnixNano(), 10))
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "GO") || strings.HasPrefix(kv, "CGO_") {
			env = append(env, kv)
		}
	}
	slices.Sort(env)
	for _, kv := range env {
		field(kv)
	}
	envFile := os.Getenv("GOENV")
	if envFile == "" {
		if cfg, err := os.UserConfigDir(); err == nil {
			envFile = filepath.Join(cfg, "go", "env")
		}
	}
	if !fileField(field, envFile) {
		return "", false
	}
	for d := dir; ; d = filepath.Dir(d) {
		if !fileField(field, filepath.Join(d, "go.mod")) || !fileField(field, filepath.Join(d, "go.work")) {
			return "", false
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	for _, f := range files {
		field(filepath.Base(f.path))
		field(string(f.head))
	}
	return hex.EncodeToString(h.Sum(nil)), true
}

// fileField adds the content of the file at path, or that it does not
// exist, to a key; it reports false when the file exists but cannot be read.
func fileField(field func(string), path string) bool {
	if path == "" || path == "off" {
		field("-")
		return true
	}
	b, err := os.ReadFile(path)
	switch {
	case err == nil:
		field(path)
		field(string(b))
	case os.IsNotExist(err):
		field("-")
	default:
		return false
	}
	return true
}

// ListStore keeps the list cache's entries: the cache layer hands one to
// the load, which keys and encodes the entries itself. Get reports false for
// an entry it does not have, or that is damaged.
type ListStore interface {
	Get(key string) ([]byte, bool)
	Put(key string, value []byte)
}

// listEntry is an entry of the list cache.
type listEntry struct {
	Name, ImportPath, Dir string
	GoFiles, CgoFiles     []string
	GoVersion             string
}

// readListEntry returns the entry stored under key, or nil.
func readListEntry(s ListStore, key string) *listedPackage {
	data, ok := s.Get(key)
	if !ok {
		return nil
	}
	var e listEntry
	if err := json.Unmarshal(data, &e); err != nil || e.Name == "" || !filepath.IsAbs(e.Dir) {
		return nil
	}
	return &listedPackage{Name: e.Name, ImportPath: e.ImportPath, Dir: e.Dir, GoFiles: e.GoFiles, CgoFiles: e.CgoFiles, goVersion: e.GoVersion}
}

// storeListEntry stores p under key.
func storeListEntry(s ListStore, key string, p *listedPackage) {
	data, err := json.Marshal(listEntry{Name: p.Name, ImportPath: p.ImportPath, Dir: p.Dir, GoFiles: p.GoFiles, CgoFiles: p.CgoFiles, GoVersion: p.goVersion})
	if err != nil {
		return
	}
	s.Put(key, data)
}
