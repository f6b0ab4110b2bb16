package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/rpcgen/rpcgen/bench/chart"
)

// ratioChart draws t as rpcgen against each peer: a bar group per row, a
// bar per implementation other than rpcgen, its length the median
// per-round ratio of its time to rpcgen's on a log scale (right of 1:
// rpcgen faster), labelled with the ratio. Nil when t has no rpcgen or no
// ratio to draw.
func (t *table) ratioChart() *chart.Chart {
	if len(t.impls) < 2 || t.impls[0] != baseline {
		return nil
	}
	pn := chart.Panel{Title: "time per operation: each implementation's ÷ rpcgen's (median per-round ratio)",
		Ratio: true, Left: "faster than rpcgen", Right: "slower than rpcgen"}
	for _, r := range t.rows {
		base := r.cells[baseline]
		if base == nil {
			continue
		}
		g := chart.Group{Label: r.key}
		if g.Label == "" {
			g.Label = "(all)"
		}
		for _, impl := range t.impls[1:] {
			if o := r.cells[impl]; o != nil {
				if v, ok := ratio(o, base); ok && v > 0 {
					g.Bars = append(g.Bars, chart.Bar{Series: impl, Value: v, Text: formatFloat(v) + "×"})
				}
			}
		}
		if len(g.Bars) > 0 {
			pn.Groups = append(pn.Groups, g)
		}
	}
	if len(pn.Groups) == 0 {
		return nil
	}
	return &chart.Chart{Title: t.name + ": rpcgen against each peer",
		Subtitle: "From " + t.pkg + ". A bar right of the line: that implementation takes longer than rpcgen, by the ratio written.",
		Panels:   []chart.Panel{pn}}
}

// chartFile is the file name of t's chart.
func (t *table) chartFile() string {
	return strings.Map(func(r rune) rune {
		if 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return '-'
	}, t.name) + ".svg"
}

// writeCharts draws every table's chart into dir and returns, by table
// name, the path to link each from a Markdown file in mdDir.
func writeCharts(coll *collection, dir, mdDir string) (map[string]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	links := map[string]string{}
	for _, t := range coll.tables {
		c := t.ratioChart()
		if c == nil {
			continue
		}
		path := filepath.Join(dir, t.chartFile())
		if err := os.WriteFile(path, []byte(c.SVG()), 0o644); err != nil {
			return nil, err
		}
		link, err := filepath.Rel(mdDir, path)
		if err != nil {
			return nil, fmt.Errorf("linking %s from %s: %w", path, mdDir, err)
		}
		links[t.name] = filepath.ToSlash(link)
	}
	return links, nil
}
