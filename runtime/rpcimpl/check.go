package rpcimpl

import "math"

// MultipleOf reports whether v is a multiple of m, as JSON Schema's
// multipleOf asks, allowing for binary rounding: 0.3 is a multiple of 0.1
// although 0.3/0.1 is 2.9999999999999996 in float64.
func MultipleOf(v, m float64) bool {
	q := v / m
	if math.IsInf(q, 0) || math.IsNaN(q) {
		return false
	}
	return math.Abs(q-math.Round(q)) <= 1e-9*math.Max(1, math.Abs(q))
}

// HasDuplicates reports whether two items of s are equal, for JSON Schema's
// uniqueItems.
func HasDuplicates[T comparable](s []T) bool {
	if len(s) <= 16 {
		for i := range s {
			for j := range i {
				if s[i] == s[j] {
					return true
				}
			}
		}
		return false
	}
	seen := make(map[T]struct{}, len(s))
	for _, v := range s {
		if _, ok := seen[v]; ok {
			return true
		}
		seen[v] = struct{}{}
	}
	return false
}
