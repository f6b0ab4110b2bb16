module github.com/rpcgen/rpcgen/interop

go 1.26.0

require (
	github.com/google/jsonschema-go v0.4.3
	github.com/gorilla/websocket v1.5.3
	github.com/mark3labs/mcp-go v1.2.1
	github.com/modelcontextprotocol/go-sdk v1.8.0
	github.com/rpcgen/rpcgen/ext/websocket v0.1.0
	github.com/sourcegraph/jsonrpc2 v0.2.3
	go.opentelemetry.io/otel v1.47.0
	go.opentelemetry.io/otel/sdk v1.47.0
	go.opentelemetry.io/otel/trace v1.47.0
)

require (
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/coder/websocket v1.8.15 // indirect
	github.com/go-jose/go-jose/v4 v4.1.9 // indirect
	github.com/go-logr/logr v1.4.4 // indirect
	github.com/go-logr/stdr v1.2.2 // indirect
	go.opentelemetry.io/auto/sdk v1.2.1 // indirect
	go.opentelemetry.io/otel/log v1.47.0 // indirect
	go.opentelemetry.io/otel/metric v1.47.0 // indirect
)

require (
	github.com/google/uuid v1.6.0 // indirect
	github.com/rpcgen/rpcgen v0.1.0
	github.com/rpcgen/rpcgen/ext/oauth v0.1.0
	github.com/rpcgen/rpcgen/ext/otel v0.1.0
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.2
	github.com/segmentio/asm v1.1.3 // indirect
	github.com/segmentio/encoding v0.5.4 // indirect
	github.com/spf13/cast v1.7.1 // indirect
	github.com/yosida95/uritemplate/v3 v3.0.2 // indirect
	golang.org/x/oauth2 v0.38.0 // indirect
	golang.org/x/sync v0.24.0 // indirect
	golang.org/x/sys v0.48.0 // indirect
	golang.org/x/text v0.14.0 // indirect
	golang.org/x/time v0.15.0 // indirect
)

replace github.com/rpcgen/rpcgen => ../

replace github.com/rpcgen/rpcgen/ext/websocket => ../ext/websocket

replace github.com/rpcgen/rpcgen/ext/oauth => ../ext/oauth

replace github.com/rpcgen/rpcgen/ext/otel => ../ext/otel
