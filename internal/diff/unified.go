package diff

import (
	"fmt"
	"strings"
)

// Context is the number of unchanged lines Unified shows around a change.
const Context = 3

// Unified returns the differences from old to new as a unified diff with
// Context lines of context, under the names oldName and newName, or "" when
// the texts are equal. A last line without a newline is marked as diff -u
// marks it.
func Unified(oldName, newName, old, new string) string {
	return unified(oldName, newName, old, new, false)
}

// Summarized is Unified for people reading a report: a changed line longer
// than LongLine bytes (a schema or an OpenRPC document that generated code
// holds as one string constant) is shortened to its start and the part
// that differs from the line it replaces, with its length. The result no
// longer applies as a patch.
func Summarized(oldName, newName, old, new string) string {
	return unified(oldName, newName, old, new, true)
}

func unified(oldName, newName, old, new string, summarize bool) string {
	if old == new {
		return ""
	}
	x, y := splitLines(old), splitLines(new)
	e := compare(number(x, y))
	ops := script(x, y, e)
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s\n+++ %s\n", oldName, newName)
	for i := 0; i < len(ops); {
		if ops[i].kind == ' ' {
			i++
			continue
		}
		// A hunk runs from Context lines before this change to Context
		// lines after the last change at most 2*Context lines away.
		start, end := max(i-Context, 0), i
		for j := i; j < len(ops); j++ {
			if ops[j].kind != ' ' {
				end = j
			} else if j-end > 2*Context {
				break
			}
		}
		end = min(end+Context+1, len(ops))
		aLen, bLen := 0, 0
		for _, op := range ops[start:end] {
			if op.kind != '+' {
				aLen++
			}
			if op.kind != '-' {
				bLen++
			}
		}
		fmt.Fprintf(&out, "@@ -%s +%s @@\n", hunkRange(ops[start].ai, aLen), hunkRange(ops[start].bi, bLen))
		hunk := ops[start:end]
		for k, op := range hunk {
			out.WriteByte(op.kind)
			if summarize {
				other, paired := counterpart(hunk, k)
				out.WriteString(shorten(op.line, other, paired))
			} else {
				out.WriteString(op.line)
			}
			if !strings.HasSuffix(op.line, "\n") {
				out.WriteString("\n\\ No newline at end of file\n")
			}
		}
		i = end
	}
	return out.String()
}

func hunkRange(start, n int) string {
	switch n {
	case 0:
		return fmt.Sprintf("%d,0", start)
	case 1:
		return fmt.Sprint(start + 1)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}

// op is one line of an edit script.
type op struct {
	kind   byte // ' ', '-' or '+'
	line   string
	ai, bi int // where the op stands in x and in y
}

// script lists the lines of x and y as kept, deleted or inserted, each run
// of changes with its deletions first, as diff -u shows them.
func script(x, y []string, e edits) []op {
	ops := make([]op, 0, max(len(x), len(y)))
	i, j := 0, 0
	for i < len(x) || j < len(y) {
		switch {
		case i < len(x) && e.deleted[i]:
			ops = append(ops, op{'-', x[i], i, j})
			i++
		case j < len(y) && e.inserted[j]:
			ops = append(ops, op{'+', y[j], i, j})
			j++
		default:
			ops = append(ops, op{' ', x[i], i, j})
			i, j = i+1, j+1
		}
	}
	return ops
}

// number gives every distinct line a number, so that the comparison looks
// at integers; a line found on one side only cannot match and keeps a
// number of its own.
func number(x, y []string) ([]int32, []int32) {
	ids := make(map[string]int32, len(x))
	a, b := make([]int32, len(x)), make([]int32, len(y))
	for i, l := range x {
		id, ok := ids[l]
		if !ok {
			id = int32(len(ids))
			ids[l] = id
		}
		a[i] = id
	}
	for i, l := range y {
		id, ok := ids[l]
		if !ok {
			id = int32(len(ids))
			ids[l] = id
		}
		b[i] = id
	}
	return a, b
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
