// Command mcpgo-server is the public benchmark's server built with
// mcpgosrv; see bench/README.md.
package main

import (
	"github.com/rpcgen/rpcgen/bench/public/servers/mcpgosrv"
	"github.com/rpcgen/rpcgen/bench/public/servers/serve"
)

func main() { serve.Main("mcpgo", mcpgosrv.Handler) }
