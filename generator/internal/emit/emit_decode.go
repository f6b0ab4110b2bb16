package emit

import (
	"fmt"
	"go/token"
	"go/types"
	"strconv"
	"strings"

	"github.com/dave/jennifer/jen"
	"github.com/invopop/jsonschema"

	"github.com/rpcgen/rpcgen/generator/internal/model"
	"github.com/rpcgen/rpcgen/generator/internal/naming"
	"github.com/rpcgen/rpcgen/generator/internal/schema"
)

// The decoders: for each method with params, a generated function that
// decodes its params with rpcimpl.Decoder and validates them against the
// input schema in the same pass, with no reflection and no schema engine.
// Objects of a user struct type get one helper per type and file, shared by
// every method that needs it (recursive types call their own helper).

// newDecodeEmitter returns the decode emitter of one generated file; it
// remembers the helpers written so far, so each is written once per file.
func newDecodeEmitter(f *jen.File, g *schema.Builder) *decodeEmitter {
	return &decodeEmitter{file: f, sg: g, helpers: map[string]string{}, patterns: map[string]string{}, taken: map[string]bool{}}
}

// emit writes the decode function of m (nothing when m has no params:
// runtime.NoParams checks those) and the helpers it needs that the file does
// not hold yet. Problems (an unsupported pattern, a bound no value can meet)
// are reported through the schema builder's error collector.
func (de *decodeEmitter) emit(svc *model.Service, m *model.Method) {
	if len(m.Params) == 0 {
		return
	}
	de.method(svc, m)
	de.flush()
}

// decodeEmitter writes decoders into one file.
type decodeEmitter struct {
	sg      *schema.Builder
	file    *jen.File
	helpers map[string]string // type key -> name of its read helper
	// patterns maps a regular expression to the package-level variable
	// holding it compiled.
	patterns map[string]string
	taken    map[string]bool // package-level names this file declares
	pending  []helper        // helpers named but not yet written
	share    *paramsShare    // the names of each method's params declarations

	// lenient marks the result decoders' emitter (newResultEmitter): no
	// schema checks, unknown keys skipped, keys matched case-insensitively.
	lenient        bool
	results        map[string]string // type key -> name of its result decode function
	pendingResults []resultFn        // result decode functions named but not yet written
}

// helper is a read function for one struct type.
type helper struct {
	name, fields string
	desc         string // the type as its doc comment names it
	t            types.Type
	st           *types.Struct
}

// member is one member of an object being decoded: a struct field or a param.
type member struct {
	key      string
	goName   string // for local names: the Go field or param name
	target   target
	prepare  []jen.Code // allocations of embedded pointers on the way
	typ      types.Type
	schema   *jsonschema.Schema
	required bool
	quoted   bool // the ",string" option
	pos      token.Position
}

// method writes the decode function of m, and of the methods whose params
// have its shape.
func (de *decodeEmitter) method(svc *model.Service, m *model.Method) {
	f := de.file
	name := de.share.decode(m)
	de.taken[name] = true
	sc := &decodeScope{d: func() *jen.Statement { return jen.Op("&").Id("d") }, owner: svc.Name + m.Name, path: svc.Name + "." + m.Name}
	var body []jen.Code
	var paramsType jen.Code
	body = append(body, jen.Id("d").Op(":=").Qual(implPath, "NewDecoder").Call(jen.Id("raw")))
	if m.StructParams {
		t := m.Params[0].Type
		if p, ok := types.Unalias(t).(*types.Pointer); ok {
			t = p.Elem()
		}
		paramsType = de.typeExpr(t)
		body = append(body, dcall("StructParams"))
		p := target{val: func() *jen.Statement { return jen.Op("*").Id("p") }, addr: func() *jen.Statement { return jen.Id("p") }, deref: true}
		body = append(body, de.value(sc, t, nil, p, false, 1, m.Params[0].Pos)...)
	} else {
		paramsType = jen.Id(de.share.params(m))
		fields := de.name(de.share.fields(m))
		goNames := paramFields(m)
		members := make([]member, len(m.Params))
		keys := make([]string, len(m.Params))
		for i, p := range m.Params {
			_, ptr := types.Unalias(p.Type).(*types.Pointer)
			members[i] = member{
				key: p.JSONKey, goName: goNames[i], target: selectorTarget("p", goNames[i]),
				typ: p.Type, schema: de.sg.ParamSchema(m, p), required: !ptr, pos: p.Pos,
			}
			keys[i] = p.JSONKey
		}
		body = append(body, dcall("Params", jen.Id(fields)))
		body = append(body, de.objectBody(sc, members, fields)...)
		f.Line()
		comment(f, wrapComment(fmt.Sprintf("%s lists the params of %s, in order.", fields, de.share.methods(m))))
		f.Var().Id(fields).Op("=").Qual(implPath, "NewFields").Call(lits(keys)...)
	}
	body = append(body, jen.Return(dcall("Finish")))

	f.Line()
	if de.share.shared(m) {
		comment(f, wrapComment(fmt.Sprintf("%s decodes the params of %s into p, by name or by position, and validates them against the methods' input schema, the same for each.", name, de.share.methods(m))))
	} else {
		f.Commentf("%s decodes the params of %s into p, by name or by", name, de.share.methods(m))
		f.Comment("position, and validates them against the method's input schema.")
	}
	f.Func().Id(name).Params(jen.Id("raw").Index().Byte(), jen.Id("p").Op("*").Add(paramsType)).Error().Block(body...)
}

// flush writes the helpers named so far, and those they name in turn.
func (de *decodeEmitter) flush() {
	for len(de.pending) > 0 || len(de.pendingResults) > 0 {
		if len(de.pendingResults) > 0 {
			r := de.pendingResults[0]
			de.pendingResults = de.pendingResults[1:]
			de.resultFunc(r)
			continue
		}
		h := de.pending[0]
		de.pending = de.pending[1:]
		de.structHelper(h)
	}
}

// structHelper writes the read function of a struct type.
func (de *decodeEmitter) structHelper(h helper) {
	f := de.file
	fields, err := de.sg.FieldsOf(h.st)
	if err != nil {
		de.sg.Errorf(token.Position{}, err.Error())
	}
	sc := &decodeScope{d: func() *jen.Statement { return jen.Id("d") }, owner: strings.TrimPrefix(h.name, "read"), path: h.desc}
	members := make([]member, len(fields))
	keys := make([]string, len(fields))
	for i, fl := range fields {
		members[i] = de.fieldMember(h.st, fl)
		keys[i] = fl.Key
	}
	typ := de.typeExpr(h.t)
	body := []jen.Code{jen.If(jen.Op("!").Add(dcall("Object"))).Block(jen.Return())}
	body = append(body, de.objectBody(sc, members, h.fields)...)
	f.Line()
	f.Commentf("%s lists the fields of %s.", h.fields, h.desc)
	f.Var().Id(h.fields).Op("=").Qual(implPath, "NewFields").Call(lits(keys)...)
	f.Line()
	if de.lenient {
		f.Commentf("%s reads an object into p, a %s, as encoding/json would.", h.name, h.desc)
	} else {
		f.Commentf("%s reads an object into p, a %s, validating it as it goes.", h.name, h.desc)
	}
	f.Func().Id(h.name).Params(
		jen.Id("d").Op("*").Qual(implPath, "Decoder"),
		jen.Id("p").Op("*").Add(typ),
	).Block(body...)
}

// fieldMember describes the struct field fl of st as a member to decode.
func (de *decodeEmitter) fieldMember(st *types.Struct, fl schema.Field) member {
	mb := member{
		key: fl.Key, goName: fl.Names[len(fl.Names)-1], typ: fl.Type,
		required: fl.Required && !de.lenient, quoted: fl.String, pos: fl.Pos,
	}
	if !de.lenient {
		mb.schema = de.sg.FieldSchema(st, fl)
	}
	// The Go path to the field: every embedded struct on the way, unless
	// one cannot be named here (unexported, from another package); the
	// field is then reached as a promoted field.
	path := fl.Names
	cur := st
	for i := 0; i < len(fl.Names)-1; i++ {
		sf := cur.Field(fl.Index[i])
		ft := types.Unalias(sf.Type())
		if fl.EmbedPtr[i] {
			ptr := ft.(*types.Pointer)
			ft = ptr.Elem()
			if de.nameable(sf) {
				alloc := selectorTarget("p", fl.Names[:i+1]...)
				mb.prepare = append(mb.prepare, jen.If(alloc.val().Op("==").Nil()).Block(
					alloc.val().Op("=").New(de.typeExpr(ptr.Elem())),
				))
			} else {
				de.sg.Errorf(fl.Pos, "field "+strings.Join(fl.Names, ".")+" cannot be decoded: it is reached through an unexported embedded pointer from another package")
			}
		}
		if !de.nameable(sf) {
			path = fl.Names[i+1:]
		}
		cur = ft.Underlying().(*types.Struct)
	}
	mb.target = selectorTarget("p", path...)
	return mb
}

// nameable reports whether generated code may write the field's name.
func (de *decodeEmitter) nameable(f *types.Var) bool {
	return f.Exported() || f.Pkg() == nil || f.Pkg().Path() == de.sg.Pkg.PkgPath
}

// objectBody reads the members of the open object: a switch on each key,
// then a check that every required member came.
func (de *decodeEmitter) objectBody(sc *decodeScope, members []member, fields string) []jen.Code {
	var code, has []jen.Code
	flags := make([]string, len(members))
	used := map[string]bool{}
	for i, mb := range members {
		if !mb.required {
			continue
		}
		flag := "has" + naming.UpperFirst(mb.goName)
		for n := 2; used[flag]; n++ {
			flag = "has" + naming.UpperFirst(mb.goName) + strconv.Itoa(n)
		}
		used[flag] = true
		flags[i] = flag
		has = append(has, jen.Id(flag))
	}
	if len(has) > 0 {
		code = append(code, jen.Var().List(has...).Bool())
	}
	code = append(code, jen.Var().Id("key").Index().Byte())
	var cases []jen.Code
	for i, mb := range members {
		var body []jen.Code
		if flags[i] != "" {
			body = append(body, jen.Id(flags[i]).Op("=").True())
		}
		body = append(body, mb.prepare...)
		body = append(body, de.valueAt(sc, mb, 1)...)
		cases = append(cases, jen.Case(jen.Lit(mb.key)).Block(body...))
	}
	if de.lenient {
		// As encoding/json: a key no field has exactly matches the first
		// equal under case folding; a key no field has is skipped.
		cases = append(cases, jen.Default().Block(
			jen.If(dcall("FoldKey", jen.Op("&").Id("key"), jen.Id(fields))).Block(jen.Goto().Id("match")),
			dcall("Skip"),
		))
		code = append(code, jen.For(dcall("NextKey", jen.Op("&").Id("key"))).Block(
			jen.Id("match").Op(":"),
			jen.Switch(jen.String().Call(jen.Id("key"))).Block(cases...),
		))
	} else {
		cases = append(cases, jen.Default().Block(dcall("UnknownField", jen.Id("key"), jen.Id(fields))))
		code = append(code, jen.For(dcall("NextKey", jen.Op("&").Id("key"))).Block(
			jen.Switch(jen.String().Call(jen.Id("key"))).Block(cases...),
		))
	}
	for i, mb := range members {
		if flags[i] != "" {
			code = append(code, jen.If(jen.Op("!").Id(flags[i])).Block(dcall("MissingField", jen.Lit(mb.key))))
		}
	}
	return code
}

// valueAt reads the value of a member.
func (de *decodeEmitter) valueAt(sc *decodeScope, mb member, depth int) []jen.Code {
	owner, path := sc.owner, sc.path
	sc.owner, sc.path = owner+naming.UpperFirst(mb.goName), path+"."+mb.goName
	defer func() { sc.owner, sc.path = owner, path }()
	return de.value(sc, mb.typ, mb.schema, mb.target, mb.quoted, depth, mb.pos)
}

// helperFor returns the name of the read helper of the struct type t,
// naming it (and queueing it to be written) the first time.
func (de *decodeEmitter) helperFor(sc *decodeScope, t types.Type, st *types.Struct) string {
	key := schema.TypeKey(t)
	if name, ok := de.helpers[key]; ok {
		return name
	}
	base, desc := sc.owner, sc.path
	if n, ok := types.Unalias(t).(*types.Named); ok {
		base, desc = exportedName(n, de.sg.Pkg.Types), de.sg.TypeString(t)
	}
	if de.lenient {
		base += "Result"
	}
	h := helper{name: de.name("read" + base), desc: desc, t: t, st: st}
	h.fields = de.name(naming.LowerFirst(base) + "Fields")
	de.helpers[key] = h.name
	de.pending = append(de.pending, h)
	return h.name
}

// exportedName spells a named type as one identifier: "Item", "PageItem"
// for Page[Item], "modelsUser" for models.User from another package.
func exportedName(n *types.Named, here *types.Package) string {
	name := n.Obj().Name()
	if pkg := n.Obj().Pkg(); pkg != nil && pkg != here {
		name = pkg.Name() + naming.UpperFirst(name)
	}
	for i := range n.TypeArgs().Len() {
		name += typeArgName(n.TypeArgs().At(i), here)
	}
	return naming.UpperFirst(name)
}

// typeArgName spells a type argument for exportedName: "Item", "PtrItem"
// for *Item, "SliceString" for []string.
func typeArgName(t types.Type, here *types.Package) string {
	switch t := types.Unalias(t).(type) {
	case *types.Named:
		return exportedName(t, here)
	case *types.Pointer:
		return "Ptr" + typeArgName(t.Elem(), here)
	case *types.Slice:
		return "Slice" + typeArgName(t.Elem(), here)
	case *types.Map:
		return "Map" + typeArgName(t.Key(), here) + typeArgName(t.Elem(), here)
	}
	return naming.UpperFirst(strings.Map(identRune, types.TypeString(t, types.RelativeTo(here))))
}

func identRune(r rune) rune {
	if r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
		return r
	}
	return -1
}

// name returns base, or base with a number, so that it clashes with neither
// the package's own names nor this file's.
func (de *decodeEmitter) name(base string) string {
	name := base
	for n := 2; de.taken[name] || de.declared(name); n++ {
		name = base + strconv.Itoa(n)
	}
	de.taken[name] = true
	return name
}

// declared reports whether the package declares name, and logs the
// question: the answer decides the output, and the generation cache keys
// on the package's declarations less its unreferenced functions.
func (de *decodeEmitter) declared(name string) bool {
	found := de.sg.Pkg.Types.Scope().Lookup(name) != nil
	de.sg.Docs.Inputs().LookedUp(name, found)
	return found
}

// typeExpr writes t as Go source in the generated file.
func (de *decodeEmitter) typeExpr(t types.Type) jen.Code {
	e := &emitter{file: de.file, pkgPath: de.sg.Pkg.PkgPath}
	return e.typeExpr(t)
}

func lits(ss []string) []jen.Code {
	out := make([]jen.Code, len(ss))
	for i, s := range ss {
		out[i] = jen.Lit(s)
	}
	return out
}
