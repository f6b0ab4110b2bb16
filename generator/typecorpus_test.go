package generator

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/rpcgen/rpcgen/generator/internal/apidoc"
	"github.com/rpcgen/rpcgen/generator/internal/goldentest"
	"github.com/rpcgen/rpcgen/generator/internal/naming"
)

// tsSamples, when set, is a directory where TestTypeCorpus writes each
// group's TypeScript client and a file assigning what encoding/json wrote
// to the client's param and result types, for tsc to check
// (interop/tsclient/run.sh).
var tsSamples = flag.String("ts-samples", "", "write the type corpus's TypeScript clients and sample checks to this directory")

// corpusMethod is one method of a class's service: how it is declared, in
// the group's package, with T standing for the class's type and H for its
// holder struct, and how the test calls it.
type corpusMethod struct {
	name   string
	params string // after ctx
	result string
	// args are the Go expressions of the test's call, after ctx, with v a
	// sample; keys the params' JSON keys ("" for a struct param).
	args, keys []string
	// setup declares what args use.
	setup string
}

var corpusMethods = []corpusMethod{
	{name: "Single", params: "v T", result: "T", args: []string{"v"}, keys: []string{"v"}},
	{name: "Many", params: "v T, n int", result: "T", args: []string{"v", "7"}, keys: []string{"v", "n"}},
	{name: "Field", params: "h H", result: "H", args: []string{"h"}, keys: []string{""}},
	{name: "Slice", params: "v []T", result: "[]T", args: []string{"s"}, keys: []string{"v"}, setup: "s := []T{v, v}"},
	{name: "Map", params: "v map[string]T", result: "map[string]T", args: []string{"m"}, keys: []string{"v"}, setup: "m := map[string]T{\"a\": v, \"b\": v}"},
	{name: "Keys", params: "v map[T]int", result: "map[T]int", args: []string{"k"}, keys: []string{"v"}, setup: "k := map[T]int{v: 1}"},
	{name: "Ptr", params: "v *T", result: "*T", args: []string{"&v"}, keys: []string{"v"}},
}

// methodsOf is the methods of c's service.
func (c corpusClass) methods() []corpusMethod {
	var ms []corpusMethod
	for _, m := range corpusMethods {
		if (m.name == "Keys" && !c.key) || slices.Contains(c.skip, m.name) {
			continue
		}
		ms = append(ms, m)
	}
	return ms
}

func (c corpusClass) service() string { return c.name + "Echo" }
func (c corpusClass) holder() string  { return c.name + "Holder" }
func (c corpusClass) tools() string   { return naming.SnakeCase(c.name) + "_" }

// subst writes T and H of a method's text as c's type and holder.
func (c corpusClass) subst(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		ch := s[i]
		word := (ch == 'T' || ch == 'H') && (i == 0 || !isIdent(s[i-1])) && (i+1 == len(s) || !isIdent(s[i+1]))
		switch {
		case word && ch == 'T':
			b.WriteString(c.typ)
		case word && ch == 'H':
			b.WriteString(c.holder())
		default:
			b.WriteByte(ch)
		}
	}
	return b.String()
}

func isIdent(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// source is the group's package: its declarations, and per class the
// service, the holder and the echo implementation.
func (g corpusGroup) source() string {
	var b strings.Builder
	fmt.Fprintf(&b, "// Package %s is the %s group of rpcgen's type corpus: %s\npackage %s\n\nimport (\n\t\"context\"\n", g.name, g.name, g.doc, g.name)
	for _, imp := range g.imports {
		fmt.Fprintf(&b, "\t%q\n", imp)
	}
	b.WriteString(")\n")
	b.WriteString(g.decls)
	// The imports may serve only the tests.
	for _, imp := range g.imports {
		fmt.Fprintf(&b, "\nvar _ = %s.%s\n", importName(imp), importAnchor[imp])
	}
	for _, c := range g.classes {
		fmt.Fprintf(&b, "\n// %s takes and returns %s values in every position.\n//\n//rpcgen:service toolprefix=%s\ntype %s interface {\n", c.service(), c.typ, c.tools(), c.service())
		for _, m := range c.methods() {
			fmt.Fprintf(&b, "\t// %s returns what it is given.\n\t%s(ctx context.Context, %s) (%s, error)\n", m.name, m.name, c.subst(m.params), c.subst(m.result))
		}
		b.WriteString("}\n")
		fmt.Fprintf(&b, "\n// %s holds %s values in every position a struct field can.\ntype %s struct {\n", c.holder(), c.typ, c.holder())
		fmt.Fprintf(&b, "\tV %s `json:\"v\"`\n\tS []%s `json:\"s\"`\n", c.typ, c.typ)
		if !slices.Contains(c.skip, "Map") {
			fmt.Fprintf(&b, "\tM map[string]%s `json:\"m\"`\n", c.typ)
		}
		if c.key {
			fmt.Fprintf(&b, "\tK map[%s]int `json:\"k\"`\n", c.typ)
		}
		fmt.Fprintf(&b, "\tP *%s `json:\"p,omitempty\"`\n}\n", c.typ)
		impl := naming.LowerFirst(c.service())
		fmt.Fprintf(&b, "\ntype %s struct{}\n", impl)
		for _, m := range c.methods() {
			param, _, _ := strings.Cut(m.params, " ")
			fmt.Fprintf(&b, "\nfunc (%s) %s(ctx context.Context, %s) (%s, error) { return %s, nil }\n", impl, m.name, c.subst(m.params), c.subst(m.result), param)
		}
	}
	return b.String()
}

// importAnchor names an exported declaration of each package the corpus
// imports, so that a group's file uses every import.
var importAnchor = map[string]string{
	"math": "MaxInt8", "time": "Second", "encoding/json": "Valid", "math/big": "NewInt", "net/netip": "MustParseAddr", "fmt": "Sprint",
	"log/slog": "LevelInfo", "net": "IPv4len", "rpcgen.test/types/foreign": "Cents",
}

func importName(path string) string { return path[strings.LastIndexByte(path, '/')+1:] }

// testSource is the group's test: per class, every sample through every
// method, over JSON-RPC and MCP (package check).
func (g corpusGroup) testSource() string {
	var b strings.Builder
	fmt.Fprintf(&b, "package %s\n\nimport (\n\t\"context\"\n\t\"testing\"\n", g.name)
	for _, imp := range g.imports {
		fmt.Fprintf(&b, "\t%q\n", imp)
	}
	fmt.Fprintf(&b, "\n\t\"%s/check\"\n)\n", corpusModule)
	for _, imp := range g.imports {
		fmt.Fprintf(&b, "\nvar _ = %s.%s\n", importName(imp), importAnchor[imp])
	}
	for _, c := range g.classes {
		svc := c.service()
		fmt.Fprintf(&b, "\nfunc Test%s(t *testing.T) {\n\tctx := context.Background()\n\timpl := %s{}\n", svc, naming.LowerFirst(svc))
		fmt.Fprintf(&b, "\tsrv := check.Serve(t, %q, New%sHandler(impl), %sTools(impl))\n", svc, svc, svc)
		fmt.Fprintf(&b, "\tclients := []%s{New%sClient(srv.Conn), New%sMCPClient(srv.MCP)}\n", svc, svc, svc)
		fmt.Fprintf(&b, "\tfor _, v := range []%s{%s} {\n", c.typ, strings.Join(c.samples, ", "))
		for _, m := range c.methods() {
			setup := m.setup
			if m.name == "Field" {
				keys := ""
				if c.key {
					keys = "K: map[T]int{v: 1}, "
				}
				if !slices.Contains(c.skip, "Map") {
					keys = "M: map[string]T{\"a\": v}, " + keys
				}
				setup = "h := H{V: v, S: []T{v, v}, " + keys + "P: &v}"
			}
			if setup != "" {
				fmt.Fprintf(&b, "\t\t{\n\t\t%s\n", c.subst(setup))
			}
			want := m.args[0]
			if !strings.HasPrefix(want, "&") {
				want = "&" + want
			}
			var params []string
			for i, k := range m.keys {
				if c.object && (m.name == "Single" || m.name == "Ptr") {
					k = "" // the params object
				}
				a := m.args[i]
				if !strings.HasPrefix(a, "&") && a != "7" {
					a = "&" + a
				}
				params = append(params, fmt.Sprintf("{Key: %q, Value: %s}", k, a))
			}
			call := fmt.Sprintf("r, err := c.%s(ctx, %s); return &r, err", m.name, strings.Join(m.args, ", "))
			if strings.HasPrefix(m.result, "*") {
				call = fmt.Sprintf("return c.%s(ctx, %s)", m.name, strings.Join(m.args, ", "))
			}
			fmt.Fprintf(&b, "\t\tcheck.Run(srv, clients, check.Case[%s]{Method: %s%sMethod, Tool: %q, Go: %q, Want: %s,\n\t\t\tParams: []check.Param{%s},\n\t\t\tCall: func(c %s) (any, error) { %s }})\n",
				svc, svc, m.name, c.tools()+naming.SnakeCase(m.name), m.name, want, strings.Join(params, ", "), svc, call)
			if setup != "" {
				b.WriteString("\t\t}\n")
			}
		}
		b.WriteString("\t}\n")
		// A nil pointer.
		key := "v"
		if c.object {
			key = ""
		}
		fmt.Fprintf(&b, "\tcheck.Run(srv, clients, check.Case[%s]{Method: %sPtrMethod, Tool: %q, Go: \"Ptr\", Want: (*%s)(nil),\n\t\tParams: []check.Param{{Key: %q, Value: nil}},\n\t\tCall: func(c %s) (any, error) { return c.Ptr(ctx, nil) }})\n",
			svc, svc, c.tools()+"ptr", c.typ, key, svc)
		b.WriteString("}\n")
	}
	return b.String()
}

// corpusModule is the module the corpus is generated and run in.
const corpusModule = "rpcgen.test/types"

// TestTypeCorpus generates the code of every group of the type corpus
// (typecorpus_table_test.go) in a module of its own and runs its tests,
// which round-trip every sample of every class, in every position, over
// JSON-RPC and MCP, raw and through both typed clients, and compare each
// answer with what encoding/json writes. Then it validates what went over
// the wire against the tools' input and output schemas and against the
// OpenRPC document's, with a JSON Schema validator nobody here wrote
// (github.com/google/jsonschema-go, which the official Go MCP SDK checks
// tool calls with), and compares the schemas and TypeScript signatures
// with testdata/typecorpus/<group>.txt (-update rewrites them).
func TestTypeCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a module")
	}
	repo, err := goldentest.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	sum, err := os.ReadFile(filepath.Join(repo, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	goldentest.MustWrite(t, filepath.Join(root, "go.mod"), []byte("module "+corpusModule+"\n\ngo 1.26.0\n\nrequire github.com/rpcgen/rpcgen v0.0.0\n\nreplace github.com/rpcgen/rpcgen => "+repo+"\n"))
	goldentest.MustWrite(t, filepath.Join(root, "go.sum"), sum)
	check, err := os.ReadFile(filepath.Join(repo, "testdata", "typesrun", "check", "check.go"))
	if err != nil {
		t.Fatal(err)
	}
	goldentest.MustWrite(t, filepath.Join(root, "check", "check.go"), check)

	for path, src := range corpusPackages {
		goldentest.MustWrite(t, filepath.Join(root, path), []byte(src))
	}
	for _, g := range corpusGroups {
		dir := filepath.Join(root, g.name)
		goldentest.MustWrite(t, filepath.Join(dir, g.name+".go"), []byte(g.source()))
		for name, src := range g.files {
			goldentest.MustWrite(t, filepath.Join(dir, name), []byte(src))
		}
		goldentest.MustWrite(t, filepath.Join(dir, g.name+"_test.go"), []byte(g.testSource()))
		var ifaces []string
		for _, c := range g.classes {
			ifaces = append(ifaces, c.service())
		}
		files, err := Generate(Config{Dir: dir, Interfaces: ifaces, Output: g.name + "_rpcgen.go",
			OpenRPC: g.name + ".openrpc.json", TypeScript: g.name + "_client.ts"})
		if err != nil {
			if list, ok := err.(ErrorList); ok {
				t.Fatalf("group %s:\n%s", g.name, list.Format(dir))
			}
			t.Fatalf("group %s: %v", g.name, err)
		}
		for path, src := range files {
			goldentest.MustWrite(t, path, src)
		}
	}
	cmd := exec.Command("go", "test", "-count=1", "./...")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOPROXY=off", "GOFLAGS=-mod=mod", "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go test of the type corpus failed: %v\n%s", err, out)
	}

	for _, g := range corpusGroups {
		t.Run(g.name, func(t *testing.T) {
			dir := filepath.Join(root, g.name)
			doc := readOpenRPC(t, filepath.Join(dir, g.name+".openrpc.json"))
			ts, err := os.ReadFile(filepath.Join(dir, g.name+"_client.ts"))
			if err != nil {
				t.Fatal(err)
			}
			var golden bytes.Buffer
			var samples []string
			for _, c := range g.classes {
				var wire []wireRecord
				b, err := os.ReadFile(filepath.Join(dir, "wire_"+c.service()+".json"))
				if err != nil {
					t.Fatal(err)
				}
				if err := json.Unmarshal(b, &wire); err != nil {
					t.Fatal(err)
				}
				fmt.Fprintf(&golden, "## %s (%s)\n", c.typ, c.service())
				described := map[string]bool{}
				for _, w := range wire {
					validateWire(t, doc, w)
					if !c.anyValue {
						for what, s := range map[string]json.RawMessage{"input": w.Input, "output": w.Output} {
							if path := emptySchema(t, s); path != "" {
								t.Errorf("%s.%s: the %s schema says nothing at %s: %s", c.service(), w.Go, what, path, compactOrEmpty(t, s))
							}
						}
					}
					samples = append(samples, tsSample(c, w))
					if described[w.Go] {
						continue
					}
					described[w.Go] = true
					describeCall(t, &golden, doc, ts, c, w)
				}
				golden.WriteString("\n")
			}
			checkCorpusGolden(t, filepath.Join(repo, "testdata", "typecorpus", g.name+".txt"), golden.Bytes())
			if *tsSamples != "" {
				out := filepath.Join(*tsSamples, g.name)
				goldentest.MustWrite(t, filepath.Join(out, g.name+"_client.ts"), ts)
				goldentest.MustWrite(t, filepath.Join(out, apidoc.TSRuntimeName), apidoc.TSRuntimeFile()) // which the client imports
				goldentest.MustWrite(t, filepath.Join(out, "samples.ts"), []byte(tsSamplesFile(g, samples)))
			}
		})
	}
}

// wireRecord is check.Record, as the corpus's tests write it.
type wireRecord struct {
	Service, Method, Go, Tool string
	Params                    json.RawMessage
	Args                      []json.RawMessage
	Result                    json.RawMessage
	Input, Output             json.RawMessage
	Wrapped                   bool
}

// openRPCDoc is the part of an OpenRPC document the corpus test reads.
type openRPCDoc struct {
	Methods []struct {
		Name   string `json:"name"`
		Params []struct {
			Name   string          `json:"name"`
			Schema json.RawMessage `json:"schema"`
		} `json:"params"`
		Result struct {
			Schema json.RawMessage `json:"schema"`
		} `json:"result"`
		ParamStructure string `json:"paramStructure"`
	} `json:"methods"`
	Components struct {
		Schemas map[string]json.RawMessage `json:"schemas"`
	} `json:"components"`

	// resolved holds the schemas resolve and resolveRaw compiled, by
	// their text: a group's calls use a few schemas hundreds of times,
	// and compiling one with its document's components each time was
	// most of the test's CPU (half a minute under the race detector).
	resolved map[string]*jsonschema.Resolved
	defs     string // the components as $defs, once resolve needs them
}

func readOpenRPC(t *testing.T, path string) *openRPCDoc {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc openRPCDoc
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	return &doc
}

func (d *openRPCDoc) method(name string) *struct {
	Name   string `json:"name"`
	Params []struct {
		Name   string          `json:"name"`
		Schema json.RawMessage `json:"schema"`
	} `json:"params"`
	Result struct {
		Schema json.RawMessage `json:"schema"`
	} `json:"result"`
	ParamStructure string `json:"paramStructure"`
} {
	for i := range d.Methods {
		if d.Methods[i].Name == name {
			return &d.Methods[i]
		}
	}
	return nil
}

// resolve compiles schema, whose "$ref"s may point into the document's
// components.
func (d *openRPCDoc) resolve(t *testing.T, what string, schema json.RawMessage) *jsonschema.Resolved {
	t.Helper()
	if d.defs == "" {
		defs, err := json.Marshal(d.Components.Schemas)
		if err != nil {
			t.Fatal(err)
		}
		d.defs = strings.ReplaceAll(string(defs), `"#/components/schemas/`, `"#/$defs/`)
	}
	text := strings.ReplaceAll(string(schema), `"#/components/schemas/`, `"#/$defs/`)
	return d.resolveRaw(t, what, json.RawMessage(`{"$defs":`+d.defs+`,"allOf":[`+text+`]}`))
}

// resolveRaw compiles a schema of its own (a tool's), or returns the one
// compiled from the same text before.
func (d *openRPCDoc) resolveRaw(t *testing.T, what string, raw json.RawMessage) *jsonschema.Resolved {
	t.Helper()
	if r, ok := d.resolved[string(raw)]; ok {
		return r
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatalf("%s: %v\n%s", what, err, raw)
	}
	r, err := s.Resolve(nil)
	if err != nil {
		t.Fatalf("%s: %v\n%s", what, err, raw)
	}
	if d.resolved == nil {
		d.resolved = map[string]*jsonschema.Resolved{}
	}
	d.resolved[string(raw)] = r
	return r
}

// validateWire checks what went over the wire in one call against the
// tool's schemas and the OpenRPC document's.
func validateWire(t *testing.T, doc *openRPCDoc, w wireRecord) {
	t.Helper()
	label := w.Service + "." + w.Go + " " + compact(t, w.Params)
	valid := func(what string, s *jsonschema.Resolved, value json.RawMessage) {
		t.Helper()
		var v any
		if err := json.Unmarshal(value, &v); err != nil {
			t.Fatal(err)
		}
		if err := s.Validate(v); err != nil {
			t.Errorf("%s: %s does not accept %s: %v", label, what, value, err)
		}
	}
	// A nil pointer to a struct is null params, which JSON-RPC carries and
	// MCP's arguments, an object, do not; a nil map or pointer result, where
	// the output schema wants an object, is an error result marked as no
	// result (docs/mapping.md), which check.Run checked.
	nullParams := string(w.Params) == "null"
	nullObject := string(w.Result) == "null" && !w.Wrapped
	if !nullParams {
		valid("the tool's input schema", doc.resolveRaw(t, label+" input schema", w.Input), w.Params)
	}
	if len(w.Output) > 0 && !nullObject {
		out := w.Result
		if w.Wrapped {
			out = json.RawMessage(`{"result":` + string(w.Result) + `}`)
		}
		valid("the tool's output schema", doc.resolveRaw(t, label+" output schema", w.Output), out)
	}
	m := doc.method(w.Method)
	if m == nil {
		t.Fatalf("%s: the OpenRPC document has no method %s", label, w.Method)
	}
	switch {
	case nullParams:
	case len(w.Args) == 1 && len(m.Params) > 1: // a struct param, by name
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(w.Args[0], &obj); err != nil {
			t.Fatal(err)
		}
		for _, p := range m.Params {
			if v, ok := obj[p.Name]; ok {
				valid("the OpenRPC schema of param "+p.Name, doc.resolve(t, label, p.Schema), v)
			}
		}
	case len(w.Args) == len(m.Params):
		for i, p := range m.Params {
			valid("the OpenRPC schema of param "+p.Name, doc.resolve(t, label, p.Schema), w.Args[i])
		}
	default:
		t.Errorf("%s: the OpenRPC document lists %d params, the call had %d", label, len(m.Params), len(w.Args))
	}
	valid("the OpenRPC result schema", doc.resolve(t, label, m.Result.Schema), w.Result)
}

// describeCall writes the golden lines of the method w called: the tool's
// schemas, the OpenRPC document's where they say something else, and the
// TypeScript client's signature.
func describeCall(t *testing.T, golden *bytes.Buffer, doc *openRPCDoc, ts []byte, c corpusClass, w wireRecord) {
	t.Helper()
	fmt.Fprintf(golden, "\n%s\n  input    %s\n", w.Go, compact(t, w.Input))
	var in struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(w.Input, &in); err != nil {
		t.Fatal(err)
	}
	out := w.Output
	if len(out) > 0 {
		fmt.Fprintf(golden, "  output   %s\n", compact(t, out))
		if w.Wrapped {
			var wrapper struct {
				Properties map[string]json.RawMessage `json:"properties"`
			}
			if err := json.Unmarshal(out, &wrapper); err != nil {
				t.Fatal(err)
			}
			out = wrapper.Properties["result"]
		}
	}
	m := doc.method(w.Method)
	for _, p := range m.Params {
		if s := compact(t, p.Schema); s != compactOrEmpty(t, in.Properties[p.Name]) {
			fmt.Fprintf(golden, "  openrpc  %s: %s\n", p.Name, s)
		}
	}
	if s := compact(t, m.Result.Schema); s != compactOrEmpty(t, out) {
		fmt.Fprintf(golden, "  openrpc  result: %s\n", s)
	}
	fmt.Fprintf(golden, "  ts       %s\n", tsSignature(t, ts, naming.LowerCamel(w.Go), c.service()))
}

// emptySchema returns the path of the first schema without a keyword in
// the schema raw, "" when there is none.
func emptySchema(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	if len(raw) == 0 {
		return ""
	}
	var root any
	if err := json.Unmarshal(raw, &root); err != nil {
		t.Fatal(err)
	}
	var find func(v any, path string) string
	find = func(v any, path string) string {
		s, ok := v.(map[string]any)
		if !ok {
			return ""
		}
		if len(s) == 0 {
			return path
		}
		for _, k := range []string{"items", "additionalProperties"} {
			if p := find(s[k], path+"/"+k); p != "" {
				return p
			}
		}
		for _, k := range []string{"anyOf", "oneOf", "allOf"} {
			list, _ := s[k].([]any)
			for i, x := range list {
				if p := find(x, fmt.Sprintf("%s/%s/%d", path, k, i)); p != "" {
					return p
				}
			}
		}
		for _, k := range []string{"properties", "$defs"} {
			m, _ := s[k].(map[string]any)
			for _, name := range slices.Sorted(maps.Keys(m)) {
				if p := find(m[name], path+"/"+k+"/"+name); p != "" {
					return p
				}
			}
		}
		return ""
	}
	return find(root, "#")
}

func compactOrEmpty(t *testing.T, raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	return compact(t, raw)
}

func compact(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// tsSignature is the declaration of method in the TypeScript client
// class of service.
func tsSignature(t *testing.T, ts []byte, method, service string) string {
	t.Helper()
	src := string(ts)
	start := strings.Index(src, "export class "+service+"Client ")
	if start < 0 {
		t.Fatalf("the TypeScript client has no class %sClient", service)
	}
	src = src[start:]
	i := strings.Index(src, "\n  async "+method+"(")
	if i < 0 {
		t.Fatalf("the TypeScript class %sClient has no method %s", service, method)
	}
	line := src[i+len("\n  async "):]
	line = line[:strings.IndexByte(line, '\n')]
	return strings.TrimSuffix(line, " {")
}

// tsSample is a TypeScript statement assigning what went over the wire in
// the call w to the TypeScript client's types of its params and result.
func tsSample(c corpusClass, w wireRecord) string {
	var args []string
	for _, a := range w.Args {
		args = append(args, string(a))
	}
	m := naming.LowerCamel(w.Go)
	return fmt.Sprintf("check<Parameters<%sClient[%q]>>([%s]);\ncheck<Awaited<ReturnType<%sClient[%q]>>>(%s);\n",
		c.service(), m, strings.Join(args, ", "), c.service(), m, w.Result)
}

func tsSamplesFile(g corpusGroup, samples []string) string {
	var clients []string
	for _, c := range g.classes {
		clients = append(clients, c.service()+"Client")
	}
	return "// What encoding/json wrote for each call of the type corpus, as the\n// TypeScript client's param and result types.\n" +
		"import type { " + strings.Join(clients, ", ") + " } from \"./" + g.name + "_client\";\n\n" +
		"function check<T>(value: T): T {\n  return value;\n}\n\n" + strings.Join(samples, "")
}

// checkCorpusGolden compares got with the golden file at path, or
// rewrites it with -update.
func checkCorpusGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		goldentest.MustWrite(t, path, got)
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to write it)", err)
	}
	if !bytes.Equal(want, got) {
		t.Errorf("%s differs (rerun with -update if the change is intended):\n%s", path, goldentest.Diff(got, want))
	}
}
