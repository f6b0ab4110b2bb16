// Command floor-server is the public benchmark's floor, built with
// floorsrv: no MCP library; see bench/README.md.
package main

import (
	"github.com/rpcgen/rpcgen/bench/public/servers/floorsrv"
	"github.com/rpcgen/rpcgen/bench/public/servers/serve"
)

func main() { serve.Main("floor", floorsrv.Handler) }
