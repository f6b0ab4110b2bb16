module github.com/rpcgen/rpcgen/bench

go 1.26.0

replace github.com/rpcgen/rpcgen => ../

replace github.com/rpcgen/rpcgen/ext/websocket => ../ext/websocket

replace github.com/rpcgen/rpcgen/ext/redis => ../ext/redis

require (
	github.com/creachadair/jrpc2 v1.3.6
	github.com/ethereum/go-ethereum v1.17.10
	github.com/mark3labs/mcp-go v1.2.1
	github.com/modelcontextprotocol/go-sdk v1.8.0
	github.com/redis/go-redis/v9 v9.23.0
	github.com/rpcgen/rpcgen v0.1.0
	github.com/rpcgen/rpcgen/ext/redis v0.1.0
	github.com/rpcgen/rpcgen/ext/websocket v0.1.0
	github.com/sourcegraph/jsonrpc2 v0.2.3
	go.opentelemetry.io/otel/sdk v1.47.0
	go.opentelemetry.io/otel/sdk/metric v1.47.0
	golang.org/x/tools v0.52.1-0.20261106145633-d407941a339a
)

require (
	go.opentelemetry.io/otel/log v1.47.0 // indirect
	go.uber.org/atomic v1.12.0 // indirect
)

require (
	github.com/Microsoft/go-winio v0.6.2 // indirect
	github.com/StackExchange/wmi v1.2.1 // indirect
	github.com/bahlo/generic-list-go v0.2.0 // indirect
	github.com/buger/jsonparser v1.1.2 // indirect
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/coder/websocket v1.8.15 // indirect
	github.com/creachadair/mds v0.31.0 // indirect
	github.com/dave/jennifer v1.7.1 // indirect
	github.com/deckarep/golang-set/v2 v2.6.0 // indirect
	github.com/fjl/jsonw v0.1.0 // indirect
	github.com/go-logr/logr v1.4.4 // indirect
	github.com/go-logr/stdr v1.2.2 // indirect
	github.com/go-ole/go-ole v1.3.0 // indirect
	github.com/google/jsonschema-go v0.4.3 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/gorilla/websocket v1.5.3 // indirect
	github.com/holiman/uint256 v1.3.2 // indirect
	github.com/invopop/jsonschema v0.14.0 // indirect
	github.com/matryer/moq v0.8.1 // indirect
	github.com/pb33f/ordered-map/v2 v2.3.1 // indirect
	github.com/rpcgen/rpcgen/ext/otel v0.1.0
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.2 // indirect
	github.com/segmentio/asm v1.1.3 // indirect
	github.com/segmentio/encoding v0.5.4 // indirect
	github.com/shirou/gopsutil v3.21.4-0.20210419000835-c7a38de76ee5+incompatible // indirect
	github.com/spf13/cast v1.7.1 // indirect
	github.com/spf13/pflag v1.1.0 // indirect
	github.com/tklauser/go-sysconf v0.3.12 // indirect
	github.com/tklauser/numcpus v0.6.1 // indirect
	github.com/yosida95/uritemplate/v3 v3.0.2 // indirect
	go.opentelemetry.io/auto/sdk v1.2.1 // indirect
	go.opentelemetry.io/otel v1.47.0
	go.opentelemetry.io/otel/metric v1.47.0
	go.opentelemetry.io/otel/trace v1.47.0
	go.uber.org/mock v0.6.0 // indirect
	go.yaml.in/yaml/v4 v4.0.0-rc.2 // indirect
	golang.org/x/mod v0.42.0 // indirect
	golang.org/x/oauth2 v0.35.0 // indirect
	golang.org/x/sync v0.24.0 // indirect
	golang.org/x/sys v0.49.0
	golang.org/x/text v0.41.0 // indirect
	golang.org/x/time v0.15.0 // indirect
)

tool (
	github.com/matryer/moq
	github.com/rpcgen/rpcgen/cmd/rpcgen
	go.uber.org/mock/mockgen
)

replace github.com/rpcgen/rpcgen/ext/otel => ../ext/otel
