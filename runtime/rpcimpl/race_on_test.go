//go:build race

package rpcimpl_test

// raceEnabled: the race detector makes sync.Pool drop some of what is put
// back, so allocation counts that rely on a pool are not checked.
const raceEnabled = true
