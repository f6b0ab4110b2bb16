package genbench

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ModulePath is the module path of the synthetic input module.
const ModulePath = "example.com/genbenchinput"

// Input is one synthetic package the generators run on.
type Input struct {
	// Name is the row name in the benchmark: iface10, nested200,
	// ifaces50x20 or heavydeps.
	Name string
	// Dir is the package directory, ImportPath its import path.
	Dir, ImportPath string
	// Interfaces are the interfaces every tool generates for, in order.
	Interfaces []string
	// EditFile is the file the just-edited state changes before each run:
	// the one declaring the interfaces.
	EditFile string
}

// Requirement is a module the input module requires, at the version the
// benchmark module resolves it to, so that it is in the module cache.
type Requirement struct {
	Path, Version string
}

// HeavyRequirements are the third-party modules the heavydeps input
// imports; they are rpcgen's own dependencies, so they are in the module
// cache of anyone who can build rpcgen.
var HeavyRequirements = []string{"golang.org/x/tools", "github.com/invopop/jsonschema"}

// WriteModule writes the synthetic input module under root: go.mod (with
// reqs, which must cover HeavyRequirements) and one package per input. The
// content depends on nothing but reqs, so every run measures the same
// sources. The caller completes go.sum (go mod tidy) before loading.
func WriteModule(root string, reqs []Requirement) ([]Input, error) {
	var mod strings.Builder
	fmt.Fprintf(&mod, "module %s\n\ngo 1.26.0\n", ModulePath)
	if len(reqs) > 0 {
		mod.WriteString("\nrequire (\n")
		for _, r := range reqs {
			fmt.Fprintf(&mod, "\t%s %s\n", r.Path, r.Version)
		}
		mod.WriteString(")\n")
	}
	files := map[string]string{"go.mod": mod.String()}

	inputs := []Input{
		{Name: "iface10", Interfaces: []string{"Small"}},
		{Name: "nested200", Interfaces: []string{"Wide"}},
		{Name: "ifaces50x20", Interfaces: serviceNames(50)},
		{Name: "heavydeps", Interfaces: []string{"Heavy"}},
	}
	pkgs := []string{"small", "wide", "many", "heavy"}
	files["small/small.go"] = smallSource("small", "Small")
	files["wide/wide.go"] = wideSource()
	files["wide/model/model.go"] = modelSource()
	files["many/many.go"] = manySource(inputs[2].Interfaces)
	files["many/types.go"] = manyTypesSource()
	files["heavy/heavy.go"] = smallSource("heavy", "Heavy")
	files["heavy/deps.go"] = heavyDepsSource()

	for name, content := range files {
		path := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			return nil, err
		}
	}
	for i := range inputs {
		in := &inputs[i]
		in.Dir = filepath.Join(root, pkgs[i])
		in.ImportPath = ModulePath + "/" + pkgs[i]
		in.EditFile = filepath.Join(in.Dir, pkgs[i]+".go")
	}
	return inputs, nil
}

func serviceNames(n int) []string {
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("Service%02d", i)
	}
	return names
}

// smallSource is a package with one documented interface of ten methods over
// a few small types: the everyday case.
func smallSource(pkg, iface string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `// Package %[1]s is a synthetic input for the generator benchmarks.
package %[1]s

import (
	"context"
	"time"
)

// %[2]s is a small service: ten methods over a few types.
type %[2]s interface {
`, pkg, iface)
	for i := range 10 {
		writeSimpleMethod(&b, fmt.Sprintf("Op%02d", i), i%5)
	}
	b.WriteString("}\n\n")
	b.WriteString(simpleTypes)
	return b.String()
}

// writeSimpleMethod writes one method of shape 0 to 4 over simpleTypes.
func writeSimpleMethod(b *strings.Builder, name string, shape int) {
	switch shape {
	case 0:
		fmt.Fprintf(b, "\t// Get%[1]s returns the item with the given id.\n\t//\n\t// id: the item's id.\n\tGet%[1]s(ctx context.Context, id string) (Item, error)\n\n", name)
	case 1:
		fmt.Fprintf(b, "\t// Put%[1]s stores an item.\n\tPut%[1]s(ctx context.Context, item Item) error\n\n", name)
	case 2:
		fmt.Fprintf(b, "\t// List%[1]s returns a page of items, oldest first.\n\t//\n\t// offset: items to skip.\n\t// limit: the most items to return.\n\tList%[1]s(ctx context.Context, offset, limit int) ([]Item, error)\n\n", name)
	case 3:
		fmt.Fprintf(b, "\t// Count%[1]s counts the items of each kind changed since a time.\n\tCount%[1]s(ctx context.Context, since time.Time, kinds []Kind) (map[string]int, error)\n\n", name)
	case 4:
		fmt.Fprintf(b, "\t// Rename%[1]s renames an item and returns it.\n\tRename%[1]s(ctx context.Context, id string, name *string) (*Item, error)\n\n", name)
	}
}

// simpleTypes are the types of smallSource and manySource.
const simpleTypes = `// Kind says what an item is.
type Kind string

// The kinds of item.
const (
	// KindFile is a file.
	KindFile Kind = "file"
	// KindDir is a directory.
	KindDir Kind = "dir"
	// KindLink is a symbolic link.
	KindLink Kind = "link"
)

// Item is one stored thing.
type Item struct {
	// ID identifies the item.
	ID string ` + "`json:\"id\" jsonschema:\"minLength=1,maxLength=64\"`" + `
	// Name is shown to people.
	Name string ` + "`json:\"name\"`" + `
	// Kind of item.
	Kind Kind ` + "`json:\"kind\"`" + `
	// Size in bytes.
	Size int64 ` + "`json:\"size\" jsonschema:\"minimum=0\"`" + `
	// Tags file the item.
	Tags []string ` + "`json:\"tags,omitempty\" jsonschema:\"maxItems=10\"`" + `
	// Modified is when the item last changed.
	Modified time.Time ` + "`json:\"modified\"`" + `
}
`

// manySource declares one interface per name, twenty methods each, in one
// package; each sets a tool prefix so that tool names stay unique in the
// one output file.
func manySource(names []string) string {
	var b strings.Builder
	b.WriteString(`// Package many is a synthetic input for the generator benchmarks: many
// interfaces in one package.
package many

import (
	"context"
	"time"
)

`)
	for i, name := range names {
		fmt.Fprintf(&b, "// %s is service number %d of %d.\n//\n//rpcgen:service toolprefix=s%02d_\ntype %s interface {\n", name, i, len(names), i, name)
		for m := range 20 {
			writeSimpleMethod(&b, fmt.Sprintf("Op%02d", m), m%5)
		}
		b.WriteString("}\n\n")
	}
	// Keep the time import used whatever the shapes are.
	b.WriteString("var _ time.Duration\n")
	return b.String()
}

func manyTypesSource() string {
	return "package many\n\nimport \"time\"\n\n" + simpleTypes
}

// heavyDepsSource makes the heavy package import a large part of the
// standard library and two third-party modules, so that go/packages has
// many dependencies to find and read export data for.
func heavyDepsSource() string {
	uses := []struct{ path, use string }{
		{"archive/zip", "zip.Store"},
		{"compress/gzip", "gzip.BestSpeed"},
		{"crypto/tls", "tls.VersionTLS13"},
		{"crypto/x509", "x509.RSA"},
		{"database/sql", "sql.ErrNoRows"},
		{"encoding/asn1", "asn1.TagInteger"},
		{"encoding/xml", "xml.Header"},
		{"go/types", "types.Typ"},
		{"html/template", "template.HTMLEscapeString"},
		{"image/png", "png.Decode"},
		{"log/slog", "slog.LevelInfo"},
		{"net/http", "http.MethodGet"},
		{"net/http/httputil", "httputil.ErrLineTooLong"},
		{"net/mail", "mail.ParseAddress"},
		{"net/rpc", "rpc.ErrShutdown"},
		{"net/smtp", "smtp.PlainAuth"},
		{"os/exec", "exec.ErrNotFound"},
		{"regexp", "regexp.MustCompile"},
		{"text/template/parse", "parse.NodeText"},
		{"github.com/invopop/jsonschema", "jsonschema.Version"},
		{"golang.org/x/tools/go/packages", "packages.NeedTypes"},
	}
	var b strings.Builder
	b.WriteString("package heavy\n\n// The imports below only make the dependency graph large.\n\nimport (\n")
	for _, u := range uses {
		fmt.Fprintf(&b, "\t%q\n", u.path)
	}
	b.WriteString(")\n\nvar (\n")
	for _, u := range uses {
		fmt.Fprintf(&b, "\t_ = %s\n", u.use)
	}
	b.WriteString(")\n")
	return b.String()
}
