package emit

import (
	"github.com/dave/jennifer/jen"

	"github.com/rpcgen/rpcgen/generator/internal/model"
	"github.com/rpcgen/rpcgen/generator/internal/naming"
)

// discoverMethod is OpenRPC's service discovery method: it takes no params
// and answers the service's OpenRPC document.
const discoverMethod = "rpc.discover"

// discoverConst is the name of the constant holding the OpenRPC document in
// the generated file: the first service's name, lower case first, plus
// "OpenRPC".
func discoverConst(services []*model.Service) string {
	return naming.LowerFirst(services[0].Name) + "OpenRPC"
}

// setDiscover makes the dispatchers answer rpc.discover with doc, unless
// doc is nil.
func (g *emitter) setDiscover(services []*model.Service, doc []byte) {
	if doc != nil {
		g.discover, g.discoverName = doc, discoverConst(services)
	}
}

// discoverCase adds the rpc.discover case to a dispatcher's switch, when the
// file carries an OpenRPC document.
func (g *emitter) discoverCase(cases *jen.Group) {
	if g.discover == nil {
		return
	}
	cases.Case(jen.Lit(discoverMethod)).Block(
		jen.Comment("OpenRPC service discovery: the document --openrpc wrote, which"),
		jen.Comment("describes every service of this file."),
		jen.If(jen.Err().Op(":=").Qual(implPath, "NoParams").Call(jen.Id("req").Dot("Params")), jen.Err().Op("!=").Nil()).Block(
			jen.Return(jen.Nil(), jen.Err()),
		),
		jen.Return(jen.Qual("encoding/json", "RawMessage").Call(jen.Id(g.discoverName)), jen.Nil()),
	)
}

// discoverDecl declares the constant the rpc.discover cases answer with.
func (g *emitter) discoverDecl(services []*model.Service) {
	if g.discover == nil {
		return
	}
	g.file.Line()
	g.file.Commentf("%s is the OpenRPC document of this file's services, compact, which", g.discoverName)
	g.file.Commentf("the dispatchers answer %s with.", discoverMethod)
	g.file.Const().Id(g.discoverName).Op("=").Add(rawString(g.discover))
}
