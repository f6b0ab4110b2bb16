package mcphttp

import (
	"net/http"

	"github.com/rpcgen/rpcgen/runtime/internal/httpguard"
)

// PromptShutdown makes srv.Shutdown close, as soon as it begins, the
// connections that have not begun a request. Go's server counts such a
// connection as busy until it is five to six seconds old (golang/go#22682),
// so a Shutdown whose context allows less fails with its deadline whenever a
// client's HTTP transport has just dialled a connection it then did not use
// (transports dial ahead while another connection frees up). A request whose
// first bytes race with the shutdown loses its connection, as it would once
// the server has exited; the handler answers 503 to those that arrive later
// on a busy connection.
//
// Call it before srv serves. It keeps a ConnState hook srv already has and
// calls it after its own. It is rpchttp.PromptShutdown, for a server of this
// package's handler.
func PromptShutdown(srv *http.Server) { httpguard.PromptShutdown(srv) }
