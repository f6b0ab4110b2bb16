// Package suggest finds, among the names a user could have meant, the one
// nearest to a name that matched none: the "did you mean" of rpcgen's
// messages.
package suggest

import "strings"

// Nearest returns the candidate nearest to name by edit distance, ignoring
// case, and whether it is near enough to suggest: at most a third of the
// name's letters (and at least one) differ. Ties go to the earlier
// candidate.
func Nearest(name string, candidates []string) (string, bool) {
	best, bestDist := "", -1
	lower := strings.ToLower(name)
	for _, c := range candidates {
		d := distance(lower, strings.ToLower(c))
		if bestDist < 0 || d < bestDist {
			best, bestDist = c, d
		}
	}
	limit := max(1, len([]rune(name))/3)
	return best, bestDist >= 0 && bestDist <= limit
}

// DidYouMean is " (did you mean X?)" for the candidate nearest to name, or
// "" when none is near.
func DidYouMean(name string, candidates []string) string {
	if c, ok := Nearest(name, candidates); ok {
		return " (did you mean " + c + "?)"
	}
	return ""
}

// distance is the Levenshtein distance of a and b, in runes, with an
// adjacent transposition counting as one edit.
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}
