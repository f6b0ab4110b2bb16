module github.com/rpcgen/rpcgen/examples/feed

go 1.26.0

require (
	github.com/rpcgen/rpcgen v0.1.0
	github.com/rpcgen/rpcgen/ext/websocket v0.1.0
)

require (
	github.com/bahlo/generic-list-go v0.2.0 // indirect
	github.com/buger/jsonparser v1.1.2 // indirect
	github.com/coder/websocket v1.8.15 // indirect
	github.com/dave/jennifer v1.7.1 // indirect
	github.com/invopop/jsonschema v0.14.0 // indirect
	github.com/pb33f/ordered-map/v2 v2.3.1 // indirect
	github.com/spf13/pflag v1.1.0 // indirect
	go.yaml.in/yaml/v4 v4.0.0-rc.2 // indirect
	golang.org/x/mod v0.42.0 // indirect
	golang.org/x/sync v0.24.0 // indirect
	golang.org/x/tools v0.52.0 // indirect
)

replace (
	github.com/rpcgen/rpcgen => ../..
	github.com/rpcgen/rpcgen/ext/websocket => ../../ext/websocket
)

tool github.com/rpcgen/rpcgen/cmd/rpcgen
