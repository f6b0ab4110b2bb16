package main

import (
	"fmt"
	"strings"
)

// unifiedDiff returns a unified diff from a to b with three lines of
// context, or "" when they are equal. It is small on purpose: the generated
// files it compares differ in a few places, so after trimming the common
// head and tail a quadratic longest-common-subsequence pass is cheap.
func unifiedDiff(nameA, nameB, a, b string) string {
	if a == b {
		return ""
	}
	x, y := splitLines(a), splitLines(b)
	ops := diffLines(x, y)
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s\n+++ %s\n", nameA, nameB)
	const context = 3
	for i := 0; i < len(ops); {
		if ops[i].kind == ' ' {
			i++
			continue
		}
		// A hunk runs from context lines before this change to context
		// lines after the last change that is at most 2*context away.
		start := max(i-context, 0)
		end := i
		for j := i; j < len(ops); j++ {
			if ops[j].kind != ' ' {
				end = j
			} else if j-end > 2*context {
				break
			}
		}
		end = min(end+context+1, len(ops))
		aStart, bStart, aLen, bLen := ops[start].ai, ops[start].bi, 0, 0
		for _, op := range ops[start:end] {
			if op.kind != '+' {
				aLen++
			}
			if op.kind != '-' {
				bLen++
			}
		}
		fmt.Fprintf(&out, "@@ -%s +%s @@\n", hunkRange(aStart, aLen), hunkRange(bStart, bLen))
		for _, op := range ops[start:end] {
			out.WriteByte(op.kind)
			out.WriteString(op.line)
			if !strings.HasSuffix(op.line, "\n") {
				out.WriteString("\n\\ No newline at end of file\n")
			}
		}
		i = end
	}
	return out.String()
}

func hunkRange(start, n int) string {
	if n == 0 {
		return fmt.Sprintf("%d,0", start)
	}
	if n == 1 {
		return fmt.Sprint(start + 1)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}

type diffOp struct {
	kind   byte // ' ', '-', '+'
	line   string
	ai, bi int // index of the line in a and b where this op stands
}

func diffLines(x, y []string) []diffOp {
	var ops []diffOp
	pre := 0
	for pre < len(x) && pre < len(y) && x[pre] == y[pre] {
		ops = append(ops, diffOp{' ', x[pre], pre, pre})
		pre++
	}
	suf := 0
	for suf < len(x)-pre && suf < len(y)-pre && x[len(x)-1-suf] == y[len(y)-1-suf] {
		suf++
	}
	mx, my := x[pre:len(x)-suf], y[pre:len(y)-suf]
	// lcs[i][j] is the LCS length of mx[i:] and my[j:].
	lcs := make([][]int32, len(mx)+1)
	for i := range lcs {
		lcs[i] = make([]int32, len(my)+1)
	}
	for i := len(mx) - 1; i >= 0; i-- {
		for j := len(my) - 1; j >= 0; j-- {
			if mx[i] == my[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	i, j := 0, 0
	for i < len(mx) || j < len(my) {
		switch {
		case i < len(mx) && j < len(my) && mx[i] == my[j]:
			ops = append(ops, diffOp{' ', mx[i], pre + i, pre + j})
			i++
			j++
		case i < len(mx) && (j == len(my) || lcs[i+1][j] >= lcs[i][j+1]):
			ops = append(ops, diffOp{'-', mx[i], pre + i, pre + j}) // deletions first, as diff -u shows them
			i++
		default:
			ops = append(ops, diffOp{'+', my[j], pre + i, pre + j})
			j++
		}
	}
	for k := range suf {
		ai, bi := len(x)-suf+k, len(y)-suf+k
		ops = append(ops, diffOp{' ', x[ai], ai, bi})
	}
	return ops
}

// splitLines splits s after each newline, keeping the newlines.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}
