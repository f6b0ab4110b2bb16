// Command gosdk-server is the public benchmark's server built with
// gosdksrv; see bench/README.md.
package main

import (
	"github.com/rpcgen/rpcgen/bench/public/servers/gosdksrv"
	"github.com/rpcgen/rpcgen/bench/public/servers/serve"
)

func main() { serve.Main("gosdk", gosdksrv.Handler) }
