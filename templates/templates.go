// Package templates holds the text/template sources rpcgen renders its
// outputs that are not Go from: the OpenRPC document, the TypeScript client
// and the Markdown reference. The generator supplies the data and the
// functions the templates call; Go output is written with jennifer instead.
package templates

import "embed"

// FS holds the templates, one file per output: openrpc.json.tmpl,
// client.ts.tmpl and reference.md.tmpl; and client_runtime.ts, the
// TypeScript runtime the clients import, which rpcgen writes as it is.
//
//go:embed *.tmpl client_runtime.ts
var FS embed.FS
