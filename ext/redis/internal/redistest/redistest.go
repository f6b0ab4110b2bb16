// Package redistest is the public package redistest under the name the
// tests of ext/redis import.
package redistest

import "github.com/rpcgen/rpcgen/ext/redis/redistest"

// Server is a redis-server process.
type Server = redistest.Server

// Start starts redis-server on a free loopback port.
var Start = redistest.Start

// Config says how a Server persists its data.
type Config = redistest.Config

// StartWith is Start with a Config.
var StartWith = redistest.StartWith
