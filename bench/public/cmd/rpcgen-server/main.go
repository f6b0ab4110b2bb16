// Command rpcgen-server is the public benchmark's server built with
// rpcgensrv; see bench/README.md.
package main

import (
	"github.com/rpcgen/rpcgen/bench/public/servers/rpcgensrv"
	"github.com/rpcgen/rpcgen/bench/public/servers/serve"
)

func main() { serve.Main("rpcgen", rpcgensrv.Handler) }
