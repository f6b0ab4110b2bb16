package main

import (
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// baseline is the impl every other impl in a row is compared with.
const baseline = "rpcgen"

// reference is the hand-written server the targets are set against: a table
// that has it gets a "rpcgen / reference" column too.
const reference = "reference"

// collection gathers the results of every round into tables.
type collection struct {
	tables []*table
	byName map[string]*table
}

// table is one top-level benchmark: rows by row key, a column per impl.
type table struct {
	name  string
	pkg   string
	rows  []*row
	byKey map[string]*row
	impls []string // in order of first appearance, baseline first
}

type row struct {
	key   string
	cells map[string]*cell // by impl
}

// cell holds one impl's metrics in one row, per round.
type cell struct {
	rounds map[int]map[string]float64
}

func newCollection() *collection { return &collection{byName: map[string]*table{}} }

// add records res, measured in round of package pkg.
func (c *collection) add(pkg string, round int, res result) {
	name, key, impl := splitName(res.name)
	t := c.byName[name]
	if t == nil {
		t = &table{name: name, pkg: pkg, byKey: map[string]*row{}}
		c.byName[name] = t
		c.tables = append(c.tables, t)
	}
	r := t.byKey[key]
	if r == nil {
		r = &row{key: key, cells: map[string]*cell{}}
		t.byKey[key] = r
		t.rows = append(t.rows, r)
	}
	if !slices.Contains(t.impls, impl) {
		t.impls = append(t.impls, impl)
		if impl == baseline {
			copy(t.impls[1:], t.impls[:len(t.impls)-1])
			t.impls[0] = baseline
		}
	}
	cl := r.cells[impl]
	if cl == nil {
		cl = &cell{rounds: map[int]map[string]float64{}}
		r.cells[impl] = cl
	}
	cl.rounds[round] = res.metrics
}

// values returns the metric unit of every round that has it.
func (cl *cell) values(unit string) []float64 {
	var vs []float64
	for _, m := range cl.rounds {
		if v, ok := m[unit]; ok {
			vs = append(vs, v)
		}
	}
	return vs
}

// ratio is the median over the rounds both have of other's ns/op divided by
// base's: how many times longer other takes than the baseline, measured
// within each round so that drift between rounds cancels out.
func ratio(other, base *cell) (float64, bool) {
	var rs []float64
	for round, m := range other.rounds {
		b, ok := base.rounds[round]["ns/op"]
		o, ok2 := m["ns/op"]
		if ok && ok2 && b > 0 {
			rs = append(rs, o/b)
		}
	}
	if len(rs) == 0 {
		return 0, false
	}
	return median(rs), true
}

func median(vs []float64) float64 {
	if len(vs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(vs)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// standardUnits are shown in a fixed order; any other unit is a custom
// metric, shown after them in alphabetical order.
var standardUnits = []string{"ns/op", "allocs/op", "B/op"}

// formatCell renders the medians of a cell: "5.2 µs ±3% · 24 allocs · 1.8 kB"
// and then each custom metric. The ± is half the spread between the fastest
// and the slowest round, relative to the median.
func formatCell(cl *cell) string {
	if cl == nil {
		return ""
	}
	var parts []string
	if ns := cl.values("ns/op"); len(ns) > 0 {
		m := median(ns)
		s := formatDuration(m)
		if len(ns) > 1 && m > 0 {
			spread := (slices.Max(ns) - slices.Min(ns)) / 2 / m * 100
			s += fmt.Sprintf(" ±%.0f%%", spread)
		}
		parts = append(parts, s)
	}
	if a := cl.values("allocs/op"); len(a) > 0 {
		parts = append(parts, formatCount(median(a))+" allocs")
	}
	if b := cl.values("B/op"); len(b) > 0 {
		parts = append(parts, formatBytes(median(b)))
	}
	units := map[string]bool{}
	for _, m := range cl.rounds {
		for u := range m {
			if !slices.Contains(standardUnits, u) {
				units[u] = true
			}
		}
	}
	for _, u := range slices.Sorted(maps.Keys(units)) {
		parts = append(parts, formatFloat(median(cl.values(u)))+" "+u)
	}
	return strings.Join(parts, " · ")
}

// formatDuration renders nanoseconds with three significant digits in the
// largest unit that keeps the number at least 1.
func formatDuration(ns float64) string {
	switch {
	case ns >= 1e9:
		return formatFloat(ns/1e9) + " s"
	case ns >= 1e6:
		return formatFloat(ns/1e6) + " ms"
	case ns >= 1e3:
		return formatFloat(ns/1e3) + " µs"
	}
	return formatFloat(ns) + " ns"
}

func formatBytes(b float64) string {
	switch {
	case b >= 1e9:
		return formatFloat(b/1e9) + " GB"
	case b >= 1e6:
		return formatFloat(b/1e6) + " MB"
	case b >= 1e3:
		return formatFloat(b/1e3) + " kB"
	}
	return formatFloat(b) + " B"
}

// formatCount renders a whole count without decimals.
func formatCount(v float64) string {
	if v == math.Trunc(v) {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return formatFloat(v)
}

// formatFloat renders v with three significant digits and no exponent.
func formatFloat(v float64) string {
	switch a := math.Abs(v); {
	case a >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case a >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	default:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
}

// writeMarkdown renders t as a Markdown table: a row per row key, a column
// per impl, and a column per impl other than the baseline with the median
// per-round time ratio to the baseline. When the table has the reference
// impl, a last column gives the baseline's ratio to it (the inverse view,
// which is how the "within 1.1× of the reference" targets read).
func (t *table) writeMarkdown(w io.Writer) {
	header := []string{"row"}
	header = append(header, t.impls...)
	hasBase := slices.Contains(t.impls, baseline)
	var compared []string
	if hasBase {
		for _, impl := range t.impls {
			if impl != baseline {
				compared = append(compared, impl)
				header = append(header, impl+" / "+baseline)
			}
		}
	}
	vsRef := hasBase && slices.Contains(t.impls, reference)
	if vsRef {
		header = append(header, baseline+" / "+reference)
	}
	for i, h := range header {
		if h == "" {
			header[i] = "(no impl)"
		}
	}
	writeRow(w, header)
	sep := make([]string, len(header))
	for i := range sep {
		sep[i] = "---"
		if i > len(t.impls) {
			sep[i] = "--:"
		}
	}
	writeRow(w, sep)
	for _, r := range t.rows {
		cols := []string{r.key}
		if r.key == "" {
			cols[0] = "(all)"
		}
		for _, impl := range t.impls {
			cols = append(cols, formatCell(r.cells[impl]))
		}
		for _, impl := range compared {
			cols = append(cols, ratioCell(r.cells[impl], r.cells[baseline]))
		}
		if vsRef {
			cols = append(cols, ratioCell(r.cells[baseline], r.cells[reference]))
		}
		writeRow(w, cols)
	}
}

// ratioCell renders the median per-round time ratio of o to b, or "" when a
// cell is missing or they share no round.
func ratioCell(o, b *cell) string {
	if o == nil || b == nil {
		return ""
	}
	if v, ok := ratio(o, b); ok {
		return formatFloat(v) + "×"
	}
	return ""
}

func writeRow(w io.Writer, cols []string) {
	for i, c := range cols {
		cols[i] = strings.ReplaceAll(c, "|", `\|`)
	}
	fmt.Fprintf(w, "| %s |\n", strings.Join(cols, " | "))
}
