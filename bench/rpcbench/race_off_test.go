//go:build !race

package rpcbench

const raceEnabled = false
