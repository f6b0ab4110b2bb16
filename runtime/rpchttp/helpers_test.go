package rpchttp_test

import "github.com/rpcgen/rpcgen/internal/jsonrpcspec"

// specHandler is the generated dispatcher of the service behind the examples in
// section 7 of the JSON-RPC 2.0 specification.
var specHandler = jsonrpcspec.NewSpecHandler(&jsonrpcspec.Impl{})
