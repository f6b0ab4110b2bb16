package generator

// What a run carries besides the generated files: the settings the cache
// keys on, the server metadata, and the warnings handed on with the files.

import (
	"fmt"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/rpcgen/rpcgen/generator/internal/cache"
	"github.com/rpcgen/rpcgen/generator/internal/diag"
	"github.com/rpcgen/rpcgen/generator/internal/load"
	"github.com/rpcgen/rpcgen/generator/internal/model"
	"github.com/rpcgen/rpcgen/generator/internal/serverdoc"
)

// foreignOf is the package parts of the qualified names among interfaces.
func foreignOf(interfaces []string) []string {
	var foreign []string
	for _, name := range interfaces {
		if q, _ := load.SplitQualified(name); q != "" {
			foreign = append(foreign, q)
		}
	}
	return foreign
}

// warningsFile is the name under which run keeps the warnings among the
// files, so that the output cache keeps them with the outputs and a run
// answered from it warns as the first did. It is not a path: generate
// takes it out.
const warningsFile = "\x00warnings"

func putWarnings(files map[string][]byte, warnings diag.List) {
	if len(warnings) == 0 {
		return
	}
	var b []byte
	for _, w := range warnings {
		b = fmt.Appendf(b, "%s\x00%d\x00%d\x00%s\n", w.Pos.Filename, w.Pos.Line, w.Pos.Column, strings.ReplaceAll(w.Msg, "\n", " "))
	}
	files[warningsFile] = b
}

// takeWarnings removes the warnings from files and returns them.
func takeWarnings(files map[string][]byte) diag.List {
	b, ok := files[warningsFile]
	if !ok {
		return nil
	}
	delete(files, warningsFile)
	var out diag.List
	for line := range strings.SplitSeq(strings.TrimSuffix(string(b), "\n"), "\n") {
		f := strings.SplitN(line, "\x00", 4)
		if len(f) != 4 {
			continue
		}
		l, _ := strconv.Atoi(f[1])
		c, _ := strconv.Atoi(f[2])
		out = append(out, &diag.Error{Pos: token.Position{Filename: f[0], Line: l, Column: c}, Msg: f[3]})
	}
	return out
}

// settingsOf is what the output cache's key takes of cfg, with dir and out
// its package directory and Go output as Generate resolved them.
func settingsOf(cfg Config, dir, out string) cache.Settings {
	return cache.Settings{Dir: dir, Out: out, Interfaces: cfg.Interfaces, BuildTags: cfg.BuildTags,
		Options: append([]string{cfg.SchemaDir, cfg.OpenRPC, cfg.TypeScript, cfg.TSRuntime, cfg.Docs, cfg.APIVersion, cfg.OpenRPCVersion, strconv.FormatBool(cfg.NoDiscover),
			cfg.License, cfg.LicenseURL, cfg.Contact, cfg.ContactEmail, cfg.ContactURL, strconv.Itoa(len(cfg.Servers))}, slices.Concat(cfg.Servers, serverSettings(cfg))...)}
	// Strict and Warn are not among them: the entry keeps the warnings, and
	// generate judges them on every run.
}

// joinDir is p relative to dir unless absolute, "" for "".
func joinDir(dir, p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(dir, p)
}

// serverSettings is what the output cache's key takes of the server.json
// and Server Card settings: each list with its length first, so that no two
// settings read the same.
func serverSettings(cfg Config) []string {
	m := cfg.Server
	out := []string{cfg.ServerJSON, cfg.ServerCard, m.Name, m.Title, m.Description, m.Repository, m.RepositorySubfolder, m.WebsiteURL}
	for _, list := range [][]string{m.Packages, m.Remotes, m.Env, m.EnvRequired, m.EnvSecret} {
		out = append(append(out, strconv.Itoa(len(list))), list...)
	}
	return out
}

// serverMeta is what the flags say of the server, and then what the
// interfaces' //rpcgen:package and //rpcgen:env lines add when a
// server.json or a card is written (the lines describe the published
// server; without those outputs they say nothing).
func serverMeta(cfg Config, services []*model.Service) serverdoc.Meta {
	m := serverdoc.Meta(cfg.Server)
	if cfg.ServerJSON == "" && cfg.ServerCard == "" {
		return m
	}
	m.Packages = slices.Clone(m.Packages)
	m.Env, m.EnvRequired, m.EnvSecret = slices.Clone(m.Env), slices.Clone(m.EnvRequired), slices.Clone(m.EnvSecret)
	for _, s := range services {
		m.Packages = append(m.Packages, s.Packages...)
		for _, v := range s.Env {
			m.Env = append(m.Env, v.Name+"="+v.Description)
			if v.Required {
				m.EnvRequired = append(m.EnvRequired, v.Name)
			}
			if v.Secret {
				m.EnvSecret = append(m.EnvSecret, v.Name)
			}
		}
	}
	return m
}
