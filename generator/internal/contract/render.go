package contract

import (
	"fmt"
	"io"
)

// Report writes the findings, breaking ones and notices (and, with safe,
// the others) one per line: "file:line:col: RULE (CATEGORY): subject", then the old and
// new shapes indented. It returns the number of breaking findings that are
// not ignored.
func Report(w io.Writer, findings []Finding, safe bool) int {
	broken := 0
	for _, f := range findings {
		if !f.Rule.Breaking && !safe && !Notices[f.Rule.Name] {
			continue
		}
		pos := f.Pos
		if pos == "" {
			pos = "-"
		}
		verdict := ""
		switch {
		case f.Rule.Breaking && f.Ignored != "":
			verdict = " [ignored: " + f.Ignored + "]"
		case f.Rule.Breaking:
			broken++
		default:
			verdict = " [safe]"
		}
		fmt.Fprintf(w, "%s: %s (%s): %s%s\n\told: %s\n\tnew: %s\n", pos, f.Rule.Name, f.Rule.Category, f.Subject, verdict, f.Old, f.New)
	}
	return broken
}
