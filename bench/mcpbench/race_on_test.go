//go:build race

package mcpbench

// raceEnabled: the race detector makes sync.Pool drop some of what is put
// in it, so exact allocation counts do not hold under it.
const raceEnabled = true
