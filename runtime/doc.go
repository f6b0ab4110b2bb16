// Package runtime carries JSON-RPC 2.0 messages between rpcgen-generated clients and dispatchers over connections, framed streams and HTTP.
package runtime
