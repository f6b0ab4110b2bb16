package diff

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// LongLine is the length in bytes beyond which Summarized shortens a line.
const LongLine = 200

// How much of a long line Summarized keeps: its start, the bytes on
// either side of what changed, and of a long change its two ends.
const (
	keepHead    = 60
	keepAround  = 30
	keepChanged = 120
)

// counterpart returns the line that hunk[k] replaces or is replaced by: in
// a run of deletions followed by a run of insertions, the i-th deletion
// and the i-th insertion are taken as one line before and after. A line
// with no such partner (more deletions than insertions, or a line only
// added) returns false.
func counterpart(hunk []op, k int) (string, bool) {
	kind := hunk[k].kind
	if kind == ' ' {
		return "", false
	}
	// The run of kind holding k.
	first := k
	for first > 0 && hunk[first-1].kind == kind {
		first--
	}
	i := k - first
	if kind == '-' {
		last := k
		for last < len(hunk) && hunk[last].kind == '-' {
			last++
		}
		if j := last + i; j < len(hunk) && hunk[j].kind == '+' && allKind(hunk[last:j+1], '+') {
			return hunk[j].line, true
		}
		return "", false
	}
	// An insertion: the deletions, if any, stand right before its run.
	dels := first
	for dels > 0 && hunk[dels-1].kind == '-' {
		dels--
	}
	if j := dels + i; j < first {
		return hunk[j].line, true
	}
	return "", false
}

func allKind(ops []op, kind byte) bool {
	for _, o := range ops {
		if o.kind != kind {
			return false
		}
	}
	return true
}

// shorten returns line, with its final newline if it has one, cut down to
// what a reader needs when it is longer than LongLine: its first bytes
// and, when it replaces or is replaced by other, the part that differs
// with a little context, then its length.
func shorten(line, other string, paired bool) string {
	body, nl := strings.CutSuffix(line, "\n")
	if len(body) <= LongLine {
		return line
	}
	other = strings.TrimSuffix(other, "\n")
	var b strings.Builder
	if !paired {
		b.WriteString(body[:cut(body, keepHead+keepChanged)])
		b.WriteString(" …")
	} else {
		// The differing part: after the common prefix, before the common
		// suffix (which may not overlap the prefix on either side).
		p := 0
		for p < len(body) && p < len(other) && body[p] == other[p] {
			p++
		}
		s := 0
		for s < len(body)-p && s < len(other)-p && body[len(body)-1-s] == other[len(other)-1-s] {
			s++
		}
		p, e := cut(body, p), cutUp(body, len(body)-s)
		from := cut(body, max(p-keepAround, 0))
		if from <= keepHead {
			b.WriteString(body[:from])
		} else {
			b.WriteString(body[:cut(body, keepHead)])
			b.WriteString(" … ")
		}
		if e-from <= keepChanged+keepAround {
			b.WriteString(body[from:e])
		} else {
			b.WriteString(body[from:cut(body, from+keepChanged)])
			b.WriteString(" … ")
			b.WriteString(body[cutUp(body, e-keepAround):e])
		}
		to := cut(body, min(e+keepAround, len(body)))
		b.WriteString(body[e:to])
		if to < len(body) {
			b.WriteString(" …")
		}
	}
	fmt.Fprintf(&b, " [%d bytes, shortened]", len(body))
	if nl {
		b.WriteByte('\n')
	}
	return b.String()
}

// cut moves i back to the start of the UTF-8 sequence it falls in, so that
// s[:i] ends on a whole character.
func cut(s string, i int) int {
	if i >= len(s) {
		return len(s)
	}
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return i
}

// cutUp moves i forward to the start of the next character, so that s[i:]
// starts on a whole one.
func cutUp(s string, i int) int {
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	return i
}
