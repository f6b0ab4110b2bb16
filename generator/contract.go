package generator

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"io"
	"path/filepath"
	"strings"

	"golang.org/x/tools/go/packages"

	"github.com/rpcgen/rpcgen/generator/internal/apidoc"
	"github.com/rpcgen/rpcgen/generator/internal/contract"
	"github.com/rpcgen/rpcgen/generator/internal/diag"
	"github.com/rpcgen/rpcgen/generator/internal/emit"
	"github.com/rpcgen/rpcgen/generator/internal/model"
	"github.com/rpcgen/rpcgen/generator/internal/schema"
	"github.com/rpcgen/rpcgen/runtime/mcp"
)

// Contract generates as Generate does and returns the contract snapshot of
// the services instead of the files: their JSON-RPC methods (params,
// results, declared errors, as the OpenRPC document states them), MCP
// tools (schemas, hints, scopes, digests), resources and prompts, and the
// exported API of the generated Go file. withPos keeps each interface's
// and method's position (file:line:col) in it, for reports; a snapshot
// committed as a baseline leaves them out. `rpcgen contract` writes it and
// `rpcgen breaking` compares two.
func Contract(cfg Config, withPos bool) ([]byte, error) {
	var snap *contract.Snapshot
	if _, err := runWith(cfg, false, nil, &snap); err != nil {
		if list, ok := err.(diag.List); ok {
			return nil, errorList(list)
		}
		return nil, err
	}
	return snap.Marshal(withPos)
}

// Breaking compares the contract old (a snapshot Contract wrote, or an
// OpenRPC document) with new (from Contract) and writes the report to w:
// each change that breaks a client, and with safe the others too. It
// returns the number of breaking changes no //rpcgen:breaking directive
// ignores.
func Breaking(old, new []byte, safe bool, w io.Writer) (int, error) {
	o, err := contract.Read(old)
	if err != nil {
		return 0, err
	}
	n, err := contract.Read(new)
	if err != nil {
		return 0, err
	}
	if o.FromOpenRPC {
		fmt.Fprintln(w, "rpcgen breaking: the old contract is an OpenRPC document: only the JSON-RPC (WIRE) rules are checked")
	}
	return contract.Report(w, contract.Compare(o, n), safe), nil
}

func buildContract(pkg *packages.Package, sg *schema.Builder, services []*model.Service, tools []*emit.ToolDescriptor, src []byte, dir string) (*contract.Snapshot, error) {
	const name = "contract.openrpc.json"
	files, _, err := apidoc.Files(pkg, sg.Docs, services, apidoc.Options{OpenRPC: name}, dir)
	if err != nil {
		return nil, err
	}
	snap, err := contract.FromOpenRPC(files[filepath.Join(dir, name)])
	if err != nil {
		return nil, err
	}
	snap.FromOpenRPC = false
	rel := func(p token.Position) string {
		if r, err := filepath.Rel(dir, p.Filename); err == nil && !strings.HasPrefix(r, "..") {
			p.Filename = filepath.ToSlash(r)
		}
		return p.String()
	}
	byName := map[string]*model.Method{}
	for _, s := range services {
		snap.Services = append(snap.Services, &contract.Service{Name: s.Name, Pos: rel(s.Pos), Ignore: s.IgnoreBreaking})
		for _, m := range s.Methods {
			byName[m.RPCName] = m
			if r := m.Resource; r != nil {
				snap.Resources = append(snap.Resources, &contract.Resource{Name: r.Name, URI: r.URI, Template: r.Template(), Method: m.RPCName,
					Title: r.Title, Icons: iconsJSON(r.Icons), Meta: r.Meta})
			}
			if m.Prompt != nil {
				p := &contract.Prompt{Name: m.Prompt.Name, Method: m.RPCName, Title: m.Prompt.Title, Icons: iconsJSON(m.Prompt.Icons), Meta: m.Prompt.Meta}
				for _, a := range m.Prompt.Args {
					p.Arguments = append(p.Arguments, &contract.PromptArg{Name: a.Param.JSONKey, Required: a.Required})
				}
				snap.Prompts = append(snap.Prompts, p)
			}
		}
	}
	for _, m := range snap.Methods {
		if mm := byName[m.Name]; mm != nil {
			s := serviceOf(services, mm)
			m.GoName, m.Pos, m.Ignore = s.Name+"."+mm.Name, rel(mm.Pos), mm.IgnoreBreaking
		}
	}
	for _, d := range tools {
		t := &contract.Tool{Name: d.Name, Method: d.Method.RPCName, Title: d.Title, Description: d.Description,
			InputSchema: json.RawMessage(d.InputSchema), Hints: d.Hints, Scopes: d.Method.Tool.Scopes, Digest: d.Digest,
			Icons: iconsJSON(d.Method.Tool.Icons), Meta: d.Method.Tool.Meta}
		if d.OutputSchema != nil {
			t.OutputSchema = json.RawMessage(d.OutputSchema)
		}
		snap.Tools = append(snap.Tools, t)
	}
	if snap.Go, err = goAPI(src); err != nil {
		return nil, err
	}
	return snap, nil
}

// iconsJSON is icons as a JSON array, nil for none.
func iconsJSON(icons []mcp.Icon) json.RawMessage {
	if len(icons) == 0 {
		return nil
	}
	b, err := json.Marshal(icons)
	if err != nil {
		return nil // an mcp.Icon is strings only
	}
	return b
}

func serviceOf(services []*model.Service, m *model.Method) *model.Service {
	for _, s := range services {
		for _, sm := range s.Methods {
			if sm == m {
				return s
			}
		}
	}
	return services[0]
}

// goAPI lists the exported declarations of the generated file src, each
// printed without its body or doc comment.
func goAPI(src []byte) ([]*contract.GoDecl, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "gen.go", src, parser.SkipObjectResolution)
	if err != nil {
		return nil, fmt.Errorf("read the generated file's API: %w", err)
	}
	var out []*contract.GoDecl
	print := func(n any) string {
		var b bytes.Buffer
		_ = (&printer.Config{Mode: printer.RawFormat}).Fprint(&b, fset, n)
		return strings.Join(strings.Fields(b.String()), " ")
	}
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			if !d.Name.IsExported() {
				continue
			}
			name := d.Name.Name
			if d.Recv != nil && len(d.Recv.List) == 1 {
				recv := d.Recv.List[0].Type
				if st, ok := recv.(*ast.StarExpr); ok {
					recv = st.X
				}
				id, ok := recv.(*ast.Ident)
				if !ok || !id.IsExported() {
					continue
				}
				name = id.Name + "." + name
			}
			c := *d
			c.Body, c.Doc = nil, nil
			out = append(out, &contract.GoDecl{Name: name, Decl: print(&c)})
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				switch s := spec.(type) {
				case *ast.TypeSpec:
					if s.Name.IsExported() {
						c := *s
						c.Doc, c.Comment = nil, nil
						if st, ok := c.Type.(*ast.StructType); ok {
							c.Type = exportedFields(st)
						}
						out = append(out, &contract.GoDecl{Name: s.Name.Name, Decl: "type " + print(&c)})
					}
				case *ast.ValueSpec:
					for i, n := range s.Names {
						if !n.IsExported() {
							continue
						}
						decl := d.Tok.String() + " " + n.Name
						if s.Type != nil {
							decl += " " + print(s.Type)
						}
						if d.Tok == token.CONST && i < len(s.Values) && !strings.HasSuffix(n.Name, "ToolDigest") {
							decl += " = " + print(s.Values[i])
						}
						out = append(out, &contract.GoDecl{Name: n.Name, Decl: decl})
					}
				}
			}
		}
	}
	return out, nil
}

// exportedFields is st without its unexported fields, which no importer
// can rely on.
func exportedFields(st *ast.StructType) *ast.StructType {
	out := &ast.StructType{Fields: &ast.FieldList{}}
	for _, f := range st.Fields.List {
		var names []*ast.Ident
		for _, n := range f.Names {
			if n.IsExported() {
				names = append(names, n)
			}
		}
		embedded := len(f.Names) == 0
		if len(names) > 0 || embedded {
			out.Fields.List = append(out.Fields.List, &ast.Field{Names: names, Type: f.Type, Tag: f.Tag})
		}
	}
	return out
}
