module github.com/rpcgen/rpcgen/ext/verify

go 1.26.0

require github.com/rpcgen/rpcgen v0.1.0

require github.com/go-jose/go-jose/v4 v4.1.9

replace github.com/rpcgen/rpcgen => ../..
