package main

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"
)

// TestStatsEncoder: the generated encoder of the stats tool's result
// writes what encoding/json writes, floats in either notation included.
func TestStatsEncoder(t *testing.T) {
	for _, s := range []Stats{
		{},
		{Count: 8, Sum: 31, Mean: 3.875, Min: 1, Max: 9},
		{Count: -1, Sum: 1e21, Mean: 1e-7, Min: math.Copysign(0, -1), Max: math.MaxFloat64},
		{Sum: 123456789.125, Mean: 1.0 / 3, Min: 5e-324, Max: 1e20},
	} {
		want, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendStatsJSON(nil, &s); !bytes.Equal(got, want) {
			t.Errorf("got %s, want %s", got, want)
		}
	}
}
