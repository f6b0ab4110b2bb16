package authnotes

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/rpcgen/rpcgen/ext/verify"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
)

// Handler serves the notes MCP server at endpoint (its public URL, such as
// https://notes.example.com/mcp) as an OAuth resource server of the
// authorization server issuer: the MCP endpoint behind the JWT verifier, and
// its Protected Resource Metadata at the well-known URL the protocol
// derives from the endpoint, listing every scope the tools use. hideTools
// leaves the tools a token cannot call out of tools/list.
func Handler(endpoint, issuer string, store *Store, hideTools bool) (http.Handler, *mcphttp.Handler, error) {
	u, err := url.Parse(endpoint)
	if err != nil {
		return nil, nil, err
	}
	// Bearer tokens, and DPoP-bound ones (RFC 9449) with their proofs.
	v, err := verify.NewJWT(verify.JWTConfig{Issuer: issuer, Audience: endpoint, DPoP: &verify.DPoPConfig{}})
	if err != nil {
		return nil, nil, err
	}
	srv := mcpserver.New(mcp.Implementation{Name: "authnotes", Version: "1.0.0"}, nil)
	srv.AddTools(NotesTools(store)...)
	metadataPath := "/.well-known/oauth-protected-resource" + strings.TrimSuffix(u.Path, "/")
	metadataURL := u.Scheme + "://" + u.Host + metadataPath
	h := mcphttp.NewHandler(srv, &mcphttp.Options{Auth: &mcphttp.Auth{
		Verify:              v.Verify,
		DPoPAlgorithms:      v.DPoPAlgorithms(),
		ResourceMetadataURL: metadataURL,
		HideTools:           hideTools,
	}})
	mux := http.NewServeMux()
	mux.Handle(u.Path, h)
	mux.Handle(metadataPath, mcphttp.ProtectedResourceMetadataHandler(mcphttp.ProtectedResourceMetadata{
		Resource:               endpoint,
		AuthorizationServers:   []string{issuer},
		ScopesSupported:        srv.Scopes(), // every scope the tools name: notes.read, notes.write
		BearerMethodsSupported: []string{"header"},
		ResourceName:           "authnotes",
	}))
	return mux, h, nil
}
