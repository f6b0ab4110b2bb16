// Package chart draws the benchmark reports' bar charts as SVG: panels of
// horizontal bar groups (a group per benchmark row, a bar per
// implementation, each labelled with its figure), either on a linear scale
// from zero or on a logarithmic scale of ratios around 1, so that "2× slower"
// and "2× faster" are bars of the same length on either side of the line.
package chart

import (
	"fmt"
	"html"
	"math"
	"strings"
)

// Chart is one SVG image: a title and panels stacked top to bottom.
type Chart struct {
	Title    string
	Subtitle string
	Panels   []Panel
}

// Panel is a scale and the bar groups drawn on it.
type Panel struct {
	Title string
	// Ratio draws bars from 1 on a logarithmic scale (values must be
	// positive); otherwise bars start at zero on a linear scale.
	Ratio bool
	// Left and Right, on a ratio panel, say what each side of 1 means
	// ("rpcgen faster").
	Left, Right string
	Groups      []Group
}

// Group is one row: a label and its bars.
type Group struct {
	Label string
	Bars  []Bar
}

// Bar is one implementation's figure in a row.
type Bar struct {
	Series string  // the implementation; it picks the colour and the legend entry
	Value  float64 // what the bar's length shows
	Text   string  // written after the bar (the figure, a ratio)
}

// palette colours series in their order of first appearance; rpcgen is
// always blue.
var palette = []string{"#dd6b20", "#38a169", "#805ad5", "#d53f8c", "#319795", "#718096", "#b7791f", "#9c4221"}

const rpcgenColour = "#2b6cb0"

const (
	width    = 900
	labelW   = 250 // the group labels' column
	textW    = 170 // room for a bar's text
	barH     = 13
	barGap   = 2
	groupGap = 9
	fontSize = 12
)

// SVG renders the chart.
func (c *Chart) SVG() string {
	series, colour := c.series()
	var b strings.Builder
	p := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	y := 22
	var body strings.Builder
	q := func(format string, a ...any) { fmt.Fprintf(&body, format, a...) }
	q(`<text x="10" y="%d" font-size="15" font-weight="bold">%s</text>`+"\n", y, esc(c.Title))
	if c.Subtitle != "" {
		y += 18
		q(`<text x="10" y="%d" fill="#4a5568">%s</text>`+"\n", y, esc(c.Subtitle))
	}
	// Legend: one swatch per series.
	y += 22
	x := 10
	for _, s := range series {
		q(`<rect x="%d" y="%d" width="12" height="12" fill="%s"/>`+"\n", x, y-10, colour[s])
		q(`<text x="%d" y="%d">%s</text>`+"\n", x+16, y, esc(s))
		x += 16 + 7*len([]rune(s)) + 18
		if x > width-120 {
			x, y = 10, y+18
		}
	}
	y += 10
	for _, pn := range c.Panels {
		y = pn.draw(&body, y, colour)
	}
	p(`<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="%d">`+"\n", width, y+10, fontSize)
	p(`<rect width="100%%" height="100%%" fill="white"/>` + "\n")
	b.WriteString(body.String())
	p("</svg>\n")
	return b.String()
}

func (c *Chart) series() ([]string, map[string]string) {
	var names []string
	colour := map[string]string{}
	others := 0
	for _, pn := range c.Panels {
		for _, g := range pn.Groups {
			for _, bar := range g.Bars {
				if _, ok := colour[bar.Series]; !ok {
					if bar.Series == "rpcgen" {
						colour[bar.Series] = rpcgenColour
					} else {
						colour[bar.Series] = palette[others%len(palette)]
						others++
					}
					names = append(names, bar.Series)
				}
			}
		}
	}
	return names, colour
}

// draw writes the panel from y down and returns where it ends.
func (pn *Panel) draw(w *strings.Builder, y int, colour map[string]string) int {
	q := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	x0, plotW := labelW+10, width-labelW-20-textW
	y += 20
	q(`<text x="10" y="%d" font-size="13" font-weight="bold">%s</text>`+"\n", y, esc(pn.Title))
	y += 10
	top := y
	// The scale: value v ends at pos(v); bars start at pos(origin).
	var pos func(v float64) float64
	origin := 0.0
	if pn.Ratio {
		// Symmetric in log around 1, wide enough for the largest ratio
		// either way (at least 2×).
		span := math.Log(2)
		for _, g := range pn.Groups {
			for _, bar := range g.Bars {
				if bar.Value > 0 {
					span = max(span, math.Abs(math.Log(bar.Value)))
				}
			}
		}
		mid := float64(x0) + float64(plotW)/2
		half := float64(plotW) / 2
		pos = func(v float64) float64 {
			if v <= 0 {
				return mid
			}
			return mid + math.Log(v)/span*half
		}
		origin = 1
		if pn.Left != "" || pn.Right != "" {
			y += 4
			q(`<text x="%.1f" y="%d" text-anchor="end" fill="#4a5568">← %s</text>`+"\n", mid-6, y+8, esc(pn.Left))
			q(`<text x="%.1f" y="%d" fill="#4a5568">%s →</text>`+"\n", mid+6, y+8, esc(pn.Right))
			y += 14
		}
	} else {
		maxV := 0.0
		for _, g := range pn.Groups {
			for _, bar := range g.Bars {
				maxV = max(maxV, bar.Value)
			}
		}
		pos = func(v float64) float64 {
			if maxV <= 0 || v <= 0 {
				return float64(x0)
			}
			return float64(x0) + v/maxV*float64(plotW)
		}
	}
	y += 6
	for i, g := range pn.Groups {
		if i%2 == 1 {
			h := len(g.Bars)*(barH+barGap) + 4
			q(`<rect x="6" y="%d" width="%d" height="%d" fill="#f4f6f8"/>`+"\n", y-2, width-12, h)
		}
		gh := len(g.Bars) * (barH + barGap)
		q(`<text x="%d" y="%d" text-anchor="end">%s</text>`+"\n", labelW, y+gh/2+4, esc(g.Label))
		for _, bar := range g.Bars {
			a, e := pos(origin), pos(bar.Value)
			left, wdt := min(a, e), math.Abs(e-a)
			q(`<rect class="bar" x="%.1f" y="%d" width="%.1f" height="%d" fill="%s"><title>%s: %s</title></rect>`+"\n",
				left, y, max(wdt, 1), barH, colour[bar.Series], esc(g.Label+", "+bar.Series), esc(bar.Text))
			// The text goes right of the bar, or right of the line for a
			// bar left of it, clear of the labels either way.
			q(`<text x="%.1f" y="%d" font-size="11">%s</text>`+"\n", max(a, e)+4, y+barH-2, esc(bar.Text))
			y += barH + barGap
		}
		y += groupGap
	}
	if pn.Ratio {
		mid := pos(1)
		q(`<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#1a202c" stroke-width="1"/>`+"\n", mid, top, mid, y)
		q(`<text x="%.1f" y="%d" text-anchor="middle" font-size="11">1×</text>`+"\n", mid, y+10)
		y += 12
	}
	return y
}

func esc(s string) string { return html.EscapeString(s) }
