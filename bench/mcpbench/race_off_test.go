//go:build !race

package mcpbench

const raceEnabled = false
