module github.com/rpcgen/rpcgen/ext/websocket

go 1.26.0

require github.com/rpcgen/rpcgen v0.1.0

require github.com/coder/websocket v1.8.15

replace github.com/rpcgen/rpcgen => ../..
