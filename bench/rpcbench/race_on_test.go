//go:build race

package rpcbench

// raceEnabled: the race detector makes sync.Pool drop some of what is put
// in it, so exact allocation counts do not hold under it.
const raceEnabled = true
