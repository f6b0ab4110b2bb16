package diff

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// lcsLen is the length of a longest common subsequence, the quadratic way.
func lcsLen(a, b []int32) int {
	prev, cur := make([]int, len(b)+1), make([]int, len(b)+1)
	for i := range a {
		for j := range b {
			if a[i] == b[j] {
				cur[j+1] = prev[j] + 1
			} else {
				cur[j+1] = max(cur[j], prev[j+1])
			}
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// check verifies that e turns a into b: the lines it keeps are equal in
// order, and returns the number of edits.
func check(t *testing.T, a, b []int32, e edits) int {
	t.Helper()
	var keptA, keptB []int32
	n := 0
	for i, del := range e.deleted {
		if del {
			n++
		} else {
			keptA = append(keptA, a[i])
		}
	}
	for j, ins := range e.inserted {
		if ins {
			n++
		} else {
			keptB = append(keptB, b[j])
		}
	}
	if len(keptA) != len(keptB) {
		t.Fatalf("kept %d lines of a, %d of b", len(keptA), len(keptB))
	}
	for i := range keptA {
		if keptA[i] != keptB[i] {
			t.Fatalf("kept line %d differs: %d, %d", i, keptA[i], keptB[i])
		}
	}
	return n
}

func randomLines(rng *rand.Rand, n, alphabet int) []int32 {
	s := make([]int32, n)
	for i := range s {
		s[i] = int32(rng.IntN(alphabet))
	}
	return s
}

// TestCompareMinimal: on random pairs, the edits are valid and as few as
// the longest common subsequence allows.
func TestCompareMinimal(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 3000 {
		a := randomLines(rng, rng.IntN(40), 1+rng.IntN(6))
		b := randomLines(rng, rng.IntN(40), 1+rng.IntN(6))
		if i%3 == 0 { // b an edit of a
			b = append([]int32(nil), a...)
			for range rng.IntN(5) {
				if len(b) > 0 {
					b[rng.IntN(len(b))] = int32(rng.IntN(8))
				}
			}
		}
		got := check(t, a, b, compare(a, b))
		if want := len(a) + len(b) - 2*lcsLen(a, b); got != want {
			t.Fatalf("a=%v b=%v: %d edits, want %d", a, b, got, want)
		}
	}
}

// TestCompareGivesUp: past maxCost the edits stay valid, only longer.
func TestCompareGivesUp(t *testing.T) {
	defer func(c int) { maxCost = c }(maxCost)
	maxCost = 3
	rng := rand.New(rand.NewPCG(3, 4))
	for range 2000 {
		a := randomLines(rng, rng.IntN(60), 1+rng.IntN(4))
		b := randomLines(rng, rng.IntN(60), 1+rng.IntN(4))
		if got, least := check(t, a, b, compare(a, b)), len(a)+len(b)-2*lcsLen(a, b); got < least {
			t.Fatalf("%d edits, fewer than the least possible %d", got, least)
		}
	}
}

func TestUnified(t *testing.T) {
	a := "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n"
	for _, c := range []struct{ name, b, want string }{
		{"two hunks", "1\n2\nthree\n4\n5\n6\n7\n8\n9\n10\n11\n",
			"--- a\n+++ b\n@@ -1,6 +1,6 @@\n 1\n 2\n-3\n+three\n 4\n 5\n 6\n@@ -8,3 +8,4 @@\n 8\n 9\n 10\n+11\n"},
		{"one hunk", "1\n2\n3\n4\nfive\n6\n7\n8\nnine\n10\n",
			"--- a\n+++ b\n@@ -2,9 +2,9 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n-9\n+nine\n 10\n"},
		{"no newline at the end", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10",
			"--- a\n+++ b\n@@ -7,4 +7,4 @@\n 7\n 8\n 9\n-10\n+10\n\\ No newline at end of file\n"},
		{"all gone", "", "--- a\n+++ b\n@@ -1,10 +0,0 @@\n-1\n-2\n-3\n-4\n-5\n-6\n-7\n-8\n-9\n-10\n"},
	} {
		if got := Unified("a", "b", a, c.b); got != c.want {
			t.Errorf("%s: got\n%s\nwant\n%s", c.name, got, c.want)
		}
	}
	if got := Unified("a", "b", a, a); got != "" {
		t.Errorf("equal inputs: %q", got)
	}
	if got := Unified("a", "b", "", "x\n"); got != "--- a\n+++ b\n@@ -0,0 +1 @@\n+x\n" {
		t.Errorf("from nothing: %q", got)
	}
}

// TestUnifiedLarge: two texts with nothing in common stop at maxCost and
// still diff every line.
func TestUnifiedLarge(t *testing.T) {
	var a, b strings.Builder
	for i := range 20000 {
		a.WriteString("a" + strings.Repeat("x", i%7) + "\n")
		b.WriteString("b" + strings.Repeat("y", i%5) + "\n")
	}
	d := Unified("a", "b", a.String(), b.String())
	if n := strings.Count(d, "\n-"); n != 20000 {
		t.Errorf("%d lines deleted, want 20000", n)
	}
}

// TestUnifiedReversed: a text against itself reversed shares every line
// but in no order; the search gives up at maxCost, and the diff is still
// valid: applying it gives the new text.
func TestUnifiedReversed(t *testing.T) {
	const n = 8000
	a, b := make([]int32, n), make([]int32, n)
	for i := range n {
		a[i], b[n-1-i] = int32(i), int32(i)
	}
	if edits := check(t, a, b, compare(a, b)); edits < 2*(n-1) {
		t.Fatalf("%d edits, fewer than possible", edits)
	}
}

// TestSummarized: a long changed line shows its start, the part that
// changed with some context, and its length; short lines and the hunk
// structure are Unified's.
func TestSummarized(t *testing.T) {
	pad := strings.Repeat("abcdefghij", 30) // 300 bytes
	before := "const schema = `{" + pad + `"description":"Add returns a + b."` + pad + "}`\n"
	after := "const schema = `{" + pad + `"description":"Add returns the sum of a and b."` + pad + "}`\n"
	old := "package p\n\n" + before + "// end\n"
	new := "package p\n\n" + after + "// end\n"
	got := Summarized("a", "b", old, new)
	lines := strings.Split(got, "\n")
	if len(lines) != 9 || lines[2] != "@@ -1,4 +1,4 @@" || lines[3] != " package p" || lines[6] != "+"+lines[6][1:] || lines[7] != " // end" {
		t.Fatalf("hunk not as Unified makes it:\n%s", got)
	}
	del, ins := lines[5], lines[6]
	for _, l := range []string{del, ins} {
		if len(l) > 400 {
			t.Errorf("line of %d bytes not shortened: %s", len(l), l)
		}
		if !strings.HasPrefix(l[1:], "const schema = `{abcdefghij") {
			t.Errorf("line lacks its start: %s", l)
		}
	}
	if !strings.Contains(del, `"description":"Add returns a + b."`) || !strings.HasSuffix(del, fmt.Sprintf(" [%d bytes, shortened]", len(before)-1)) {
		t.Errorf("deleted line: %s", del)
	}
	if !strings.Contains(ins, `"description":"Add returns the sum of a and b."`) || !strings.HasSuffix(ins, fmt.Sprintf(" [%d bytes, shortened]", len(after)-1)) {
		t.Errorf("inserted line: %s", ins)
	}

	// A long line with no line it replaces: its start and length.
	got = Summarized("a", "b", "", before)
	if want := "--- a\n+++ b\n@@ -0,0 +1 @@\n+" + before[:180] + " … [" + fmt.Sprint(len(before)-1) + " bytes, shortened]\n"; got != want {
		t.Errorf("long line added:\ngot  %q\nwant %q", got, want)
	}

	// A change far into a very long line, and a change that is itself long.
	long := strings.Repeat("é", 500) // two bytes each: cuts fall between characters
	got = Summarized("a", "b", "x"+long+"1\n", "x"+long+"2\n")
	if !utf8.ValidString(got) || !strings.Contains(got, "… "+strings.Repeat("é", 15)+"1 [1002 bytes, shortened]") {
		t.Errorf("change at the end of a long line:\n%s", got)
	}
	got = Summarized("a", "b", "<"+long+">\n", "<"+strings.Repeat("e", 1000)+">\n")
	if !utf8.ValidString(got) || !strings.Contains(got, "-<"+strings.Repeat("é", 59)+" … "+strings.Repeat("é", 15)+"> [1002 bytes, shortened]") {
		t.Errorf("long change:\n%s", got)
	}

	// Short lines are left alone: Summarized is Unified then.
	if a, b := "1\n2\n3\n", "1\ntwo\n3\n"; Summarized("a", "b", a, b) != Unified("a", "b", a, b) {
		t.Error("short lines changed")
	}
}
