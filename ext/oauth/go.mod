module github.com/rpcgen/rpcgen/ext/oauth

go 1.26.0

require (
	github.com/go-jose/go-jose/v4 v4.1.9
	github.com/rpcgen/rpcgen v0.1.0
	golang.org/x/oauth2 v0.38.0
)

replace github.com/rpcgen/rpcgen => ../..
