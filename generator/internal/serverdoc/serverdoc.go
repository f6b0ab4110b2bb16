// Package serverdoc writes the documents that describe a server to those who
// would find it: the MCP registry's server.json (schema 2025-12-11) and a
// Server Card (SEP-2127, a draft), from the metadata the rpcgen command's
// flags declare. It checks that metadata against the rules the registry and
// the card's schema state, so that a mistake is an error at generate time
// rather than a refusal at publish time.
package serverdoc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"path"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/rpcgen/rpcgen/runtime/mcp"
)

// The schemas the documents name.
const (
	ServerJSONSchema = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"
	CardSchema       = "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json"
)

// Meta is what the documents say about the server, as the flags give it.
type Meta struct {
	Name, Title, Description                    string
	Repository, RepositorySubfolder, WebsiteURL string
	// Packages are TYPE:IDENTIFIER; Remotes are URL, streamable-http=URL or
	// sse=URL; Env are NAME=DESCRIPTION, and EnvRequired and EnvSecret name
	// some of them.
	Packages, Remotes           []string
	Env, EnvRequired, EnvSecret []string
}

// Outputs are the paths to write, "" for a document not asked for, and the
// facts the generator supplies.
type Outputs struct {
	ServerJSON, ServerCard string
	Version                string // the server's version (--api-version)
	Doc                    string // the first interface's doc comment, for a description not given
}

type repository struct {
	URL       string `json:"url"`
	Source    string `json:"source"`
	Subfolder string `json:"subfolder,omitempty"`
}

type transport struct {
	Type string `json:"type"`
}

type envVar struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	IsRequired  bool   `json:"isRequired,omitempty"`
	IsSecret    bool   `json:"isSecret,omitempty"`
}

type pkg struct {
	RegistryType         string    `json:"registryType"`
	Identifier           string    `json:"identifier"`
	Version              string    `json:"version,omitempty"`
	Transport            transport `json:"transport"`
	EnvironmentVariables []envVar  `json:"environmentVariables,omitempty"`
}

type remote struct {
	Type                      string   `json:"type"`
	URL                       string   `json:"url"`
	SupportedProtocolVersions []string `json:"supportedProtocolVersions,omitempty"`
}

type serverJSON struct {
	Schema      string      `json:"$schema"`
	Name        string      `json:"name"`
	Title       string      `json:"title,omitempty"`
	Description string      `json:"description"`
	Version     string      `json:"version"`
	WebsiteURL  string      `json:"websiteUrl,omitempty"`
	Repository  *repository `json:"repository,omitempty"`
	Packages    []pkg       `json:"packages,omitempty"`
	Remotes     []remote    `json:"remotes,omitempty"`
}

type card struct {
	Schema      string      `json:"$schema"`
	Name        string      `json:"name"`
	Version     string      `json:"version"`
	Description string      `json:"description"`
	Title       string      `json:"title,omitempty"`
	WebsiteURL  string      `json:"websiteUrl,omitempty"`
	Repository  *repository `json:"repository,omitempty"`
	Remotes     []remote    `json:"remotes,omitempty"`
}

// Files returns the documents out asks for, keyed by the paths in out, or
// an error naming the flag whose value the registry or the card would
// refuse.
func Files(m Meta, out Outputs) (map[string][]byte, error) {
	if out.ServerJSON == "" && out.ServerCard == "" {
		if used := m.used(); used != "" {
			return nil, fmt.Errorf("%s describes the server for --server-json or --server-card, and neither is given", used)
		}
		return nil, nil
	}
	s, err := build(m, out)
	if err != nil {
		return nil, err
	}
	files := map[string][]byte{}
	if out.ServerJSON != "" {
		files[out.ServerJSON] = encode(s)
	}
	if out.ServerCard != "" {
		if len(s.Remotes) == 0 {
			return nil, fmt.Errorf("--server-card: a Server Card describes a remote server: give its URL with --remote")
		}
		c := card{Schema: CardSchema, Name: s.Name, Version: s.Version, Description: s.Description, Title: s.Title,
			WebsiteURL: s.WebsiteURL, Repository: s.Repository}
		for _, r := range s.Remotes {
			r.SupportedProtocolVersions = Versions(r.Type)
			c.Remotes = append(c.Remotes, r)
		}
		files[out.ServerCard] = encode(c)
	}
	return files, nil
}

// Versions are the MCP revisions rpcgen's runtime serves over a transport
// of the registry's type: every revision over Streamable HTTP (mcphttp
// serves the legacy ones in sessions and 2026-07-28 statelessly), the
// legacy ones over HTTP+SSE.
func Versions(transportType string) []string {
	if transportType == "sse" {
		return slices.Clone(mcp.LegacyVersions)
	}
	return slices.Concat(mcp.LegacyVersions, mcp.ModernVersions)
}

// used names the first metadata flag given, "" when none is.
func (m Meta) used() string {
	switch {
	case m.Name != "":
		return "--server-name"
	case m.Title != "":
		return "--server-title"
	case m.Description != "":
		return "--server-description"
	case m.Repository != "":
		return "--repository"
	case m.RepositorySubfolder != "":
		return "--repository-subfolder"
	case m.WebsiteURL != "":
		return "--website"
	case len(m.Packages) > 0:
		return "--package"
	case len(m.Remotes) > 0:
		return "--remote"
	case len(m.Env) > 0:
		return "--env"
	case len(m.EnvRequired) > 0:
		return "--env-required"
	case len(m.EnvSecret) > 0:
		return "--env-secret"
	}
	return ""
}

func encode(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v) // strings and slices of them: cannot fail
	return b.Bytes()
}

var (
	namePattern = regexp.MustCompile(`^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$`)
	envPattern  = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	// versionRange matches the version ranges the registry refuses.
	versionRange = regexp.MustCompile(`^[\^~<>=]|(^|\.)[xX*](\.|$)`)
)

// build checks m and makes the server.json document of it.
func build(m Meta, out Outputs) (*serverJSON, error) {
	which := "--server-json"
	if out.ServerJSON == "" {
		which = "--server-card"
	}
	s := &serverJSON{Schema: ServerJSONSchema, Name: m.Name, Title: m.Title, Version: out.Version}
	switch {
	case m.Name == "":
		return nil, fmt.Errorf("%s needs --server-name, the server's name in reverse-DNS form with one slash (io.github.you/notes)", which)
	case !namePattern.MatchString(m.Name) || len(m.Name) > 200:
		return nil, fmt.Errorf("--server-name %q: want a reverse-DNS namespace, one slash and a name (io.github.you/notes; letters, digits and . - in the namespace, also _ in the name; at most 200 characters)", m.Name)
	}
	if n := utf8.RuneCountInString(m.Title); n > 100 {
		return nil, fmt.Errorf("--server-title is %d characters; the registry takes at most 100", n)
	}
	if s.Version == "" {
		s.Version = "0.0.0"
	}
	if s.Version == "latest" || versionRange.MatchString(s.Version) || len(s.Version) > 255 {
		return nil, fmt.Errorf("--api-version %q: server.json wants one specific version (1.2.0), not a range or \"latest\"", s.Version)
	}
	desc, from := m.Description, "--server-description"
	if desc == "" {
		desc, from = firstSentence(out.Doc), "the interface's doc comment"
	}
	switch n := utf8.RuneCountInString(desc); {
	case n == 0:
		return nil, fmt.Errorf("%s needs a description: give --server-description, or a doc comment to the first interface", which)
	case n > 100:
		return nil, fmt.Errorf("the description from %s is %d characters; the registry takes at most 100: give a shorter --server-description", from, n)
	}
	s.Description = desc
	if m.WebsiteURL != "" {
		if err := checkURL("--website", m.WebsiteURL); err != nil {
			return nil, err
		}
		s.WebsiteURL = m.WebsiteURL
	}
	if m.Repository != "" || m.RepositorySubfolder != "" {
		r, err := repositoryOf(m.Repository, m.RepositorySubfolder)
		if err != nil {
			return nil, err
		}
		s.Repository = r
	}
	env, err := envOf(m)
	if err != nil {
		return nil, err
	}
	for _, p := range m.Packages {
		pk, err := packageOf(p, s.Version)
		if err != nil {
			return nil, err
		}
		pk.EnvironmentVariables = env
		s.Packages = append(s.Packages, pk)
	}
	if len(env) > 0 && len(s.Packages) == 0 {
		return nil, fmt.Errorf("--env: environment variables are set when a package runs: give the package with --package")
	}
	for _, r := range m.Remotes {
		rm, err := remoteOf(r)
		if err != nil {
			return nil, err
		}
		s.Remotes = append(s.Remotes, rm)
	}
	return s, nil
}

// firstSentence is the first sentence of doc's first paragraph, or the
// paragraph when it has no sentence end.
func firstSentence(doc string) string {
	para, _, _ := strings.Cut(strings.TrimSpace(doc), "\n\n")
	para = strings.Join(strings.Fields(para), " ")
	if i := strings.Index(para, ". "); i >= 0 {
		return para[:i+1]
	}
	return para
}

func checkURL(flag, s string) error {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || strings.ContainsAny(s, " \t\n") {
		return fmt.Errorf("%s %q: want an absolute http or https URL", flag, s)
	}
	return nil
}

// sources are the repository hosts whose source identifier rpcgen knows.
var sources = map[string]string{"github.com": "github", "gitlab.com": "gitlab"}

func repositoryOf(repo, sub string) (*repository, error) {
	if repo == "" {
		return nil, fmt.Errorf("--repository-subfolder needs --repository")
	}
	if err := checkURL("--repository", repo); err != nil {
		return nil, err
	}
	u, _ := url.Parse(repo)
	source, ok := sources[strings.ToLower(u.Host)]
	if !ok {
		return nil, fmt.Errorf("--repository %q: rpcgen knows repositories on github.com and gitlab.com, which the registry can check", repo)
	}
	if sub != "" && (path.IsAbs(sub) || path.Clean(sub) != sub || sub == "." || sub == ".." || strings.HasPrefix(sub, "../") || strings.Contains(sub, "\\")) {
		return nil, fmt.Errorf("--repository-subfolder %q: want a clean relative path such as servers/notes", sub)
	}
	return &repository{URL: repo, Source: source, Subfolder: sub}, nil
}

// packageVersioned are the package types rpcgen writes, and whether the
// version goes in a field of its own (an OCI image's is in its reference).
var packageVersioned = map[string]bool{"npm": true, "pypi": true, "nuget": true, "oci": false}

func packageOf(p, version string) (pkg, error) {
	typ, id, ok := strings.Cut(p, ":")
	if !ok || id == "" {
		return pkg{}, fmt.Errorf("--package %q: want TYPE:IDENTIFIER, such as oci:ghcr.io/you/notes:1.0.0 or npm:@you/notes", p)
	}
	if problem := PackageProblem(typ, id); problem != "" {
		return pkg{}, fmt.Errorf("--package %q: %s", p, problem)
	}
	out := pkg{RegistryType: typ, Identifier: id, Transport: transport{Type: "stdio"}}
	if packageVersioned[typ] {
		out.Version = version
	}
	return out, nil
}

// PackageProblem says what the registry would refuse in a package of type
// typ (npm, pypi, nuget or oci) named id, "" when nothing.
func PackageProblem(typ, id string) string {
	_, known := packageVersioned[typ]
	switch {
	case typ == "mcpb":
		return "an mcpb package needs the SHA-256 of its file, which rpcgen does not have: add it to server.json by hand"
	case !known:
		return fmt.Sprintf("unknown package type %q (want npm, pypi, nuget or oci)", typ)
	case id == "":
		return "no identifier"
	case strings.ContainsAny(id, " \t\n"):
		return "the identifier has a space"
	case typ == "oci" && !hasImageTag(id):
		return "an OCI image reference needs a tag or a digest (ghcr.io/you/notes:1.0.0)"
	}
	return ""
}

// ValidEnvName says whether name may name an environment variable.
func ValidEnvName(name string) bool { return envPattern.MatchString(name) }

// hasImageTag reports whether an OCI reference names a tag or a digest.
func hasImageTag(ref string) bool {
	if strings.Contains(ref, "@") {
		return true
	}
	last := ref[strings.LastIndex(ref, "/")+1:]
	return strings.Contains(last, ":")
}

func remoteOf(r string) (remote, error) {
	typ, u := "streamable-http", r
	if t, rest, ok := strings.Cut(r, "="); ok && (t == "streamable-http" || t == "sse") {
		typ, u = t, rest
	}
	if err := checkURL("--remote", u); err != nil {
		return remote{}, fmt.Errorf("%v (or streamable-http=URL, sse=URL)", err)
	}
	return remote{Type: typ, URL: u}, nil
}

func envOf(m Meta) ([]envVar, error) {
	var vars []envVar
	seen := map[string]int{}
	for _, e := range m.Env {
		name, desc, _ := strings.Cut(e, "=")
		if !envPattern.MatchString(name) {
			return nil, fmt.Errorf("--env %q: want NAME=DESCRIPTION, NAME of letters, digits and _", e)
		}
		if _, dup := seen[name]; dup {
			return nil, fmt.Errorf("--env %s is given twice", name)
		}
		seen[name] = len(vars)
		vars = append(vars, envVar{Name: name, Description: desc})
	}
	mark := func(flag string, names []string, set func(*envVar)) error {
		for _, n := range names {
			i, ok := seen[n]
			if !ok {
				return fmt.Errorf("%s %s: no --env declares %s", flag, n, n)
			}
			set(&vars[i])
		}
		return nil
	}
	if err := mark("--env-required", m.EnvRequired, func(v *envVar) { v.IsRequired = true }); err != nil {
		return nil, err
	}
	if err := mark("--env-secret", m.EnvSecret, func(v *envVar) { v.IsSecret = true }); err != nil {
		return nil, err
	}
	return vars, nil
}
