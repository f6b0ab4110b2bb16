package emit

import (
	"fmt"

	"github.com/dave/jennifer/jen"

	"github.com/rpcgen/rpcgen/generator/internal/canon"
	"github.com/rpcgen/rpcgen/generator/internal/model"
)

// A ToolDescriptor is one tool as tools/list describes it (from 2025-06-18
// on, less its _meta), with the digest the generated file declares for it.
type ToolDescriptor struct {
	Method *model.Method
	canon.Tool
	// Digest is "sha256:" and the hex SHA-256 of the descriptor's
	// canonical JSON (RFC 8785), Size that JSON's length: what a tool
	// manifest (SEP-2636) states for the tool.
	Digest string
	Size   int
}

// descriptors are the descriptors of the services' tools, in the order of
// the file, with their digests.
func (g *emitter) descriptors(services []*model.Service) ([]*ToolDescriptor, error) {
	var out []*ToolDescriptor
	for _, s := range services {
		for _, m := range s.Methods {
			if m.Tool == nil {
				continue
			}
			sc := g.schemas[m]
			d := &ToolDescriptor{Method: m, Tool: canon.Tool{
				Name: m.Tool.Name, Title: m.Tool.Title, Description: toolDescription(m),
				InputSchema: sc.input, OutputSchema: sc.output, Hints: hints(m.Tool), Icons: m.Tool.Icons,
			}}
			var err error
			if d.Digest, d.Size, err = d.Tool.Digest(); err != nil {
				return nil, fmt.Errorf("method %s: digest of its tool: %w", m.Name, err)
			}
			out = append(out, d)
		}
	}
	return out, nil
}

// hints are the annotations' hints a //rpcgen:tool directive set, by their
// wire names, as annotations renders them.
func hints(t *model.Tool) map[string]bool {
	set := map[string]bool{}
	for name, v := range map[string]*bool{
		"readOnlyHint": t.ReadOnly, "destructiveHint": t.Destructive,
		"idempotentHint": t.Idempotent, "openWorldHint": t.OpenWorld,
	} {
		if v != nil {
			set[name] = *v
		}
	}
	if len(set) == 0 {
		return nil
	}
	return set
}

// digestDecls writes a constant per tool holding its digest.
func (g *emitter) digestDecls(s *model.Service, names *serviceNames, tools []*model.Method) {
	f := g.file
	f.Line()
	f.Commentf("Digests of the %s tools: SHA-256 over each descriptor's canonical JSON", s.Name)
	f.Comment("(RFC 8785), as tool manifests (SEP-2636) define them. A host or a CI job")
	f.Comment("can pin a tool by its digest; rpcgen breaking lists the digests that change.")
	f.Const().DefsFunc(func(defs *jen.Group) {
		for _, m := range tools {
			d := g.digests[m]
			defs.Comment(fmt.Sprintf("%s is the digest of the %s tool's descriptor (%d bytes).", names.digest(m), m.Tool.Name, d.Size))
			defs.Id(names.digest(m)).Op("=").Lit(d.Digest)
		}
	})
}

func (n *serviceNames) digest(m *model.Method) string { return n.s.Name + m.Name + "ToolDigest" }
