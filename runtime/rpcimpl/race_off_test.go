//go:build !race

package rpcimpl_test

const raceEnabled = false
