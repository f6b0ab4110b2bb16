package chart

import (
	"encoding/xml"
	"io"
	"strconv"
	"strings"
	"testing"
)

// element is an SVG element as the test reads it back.
type element struct {
	name  string
	attrs map[string]string
	text  string
}

// parse reads svg as XML, failing the test when it is not well formed.
func parse(t *testing.T, svg string) []*element {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(svg))
	var all, open []*element
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("not XML: %v\n%s", err, svg)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			e := &element{name: tok.Name.Local, attrs: map[string]string{}}
			for _, a := range tok.Attr {
				e.attrs[a.Name.Local] = a.Value
			}
			all, open = append(all, e), append(open, e)
		case xml.EndElement:
			open = open[:len(open)-1]
		case xml.CharData:
			if len(open) > 0 {
				open[len(open)-1].text += string(tok)
			}
		}
	}
	if len(all) == 0 || all[0].name != "svg" {
		t.Fatalf("no svg root:\n%s", svg)
	}
	return all
}

func num(t *testing.T, e *element, attr string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(e.attrs[attr], 64)
	if err != nil {
		t.Fatalf("%s %s=%q: %v", e.name, attr, e.attrs[attr], err)
	}
	return v
}

// TestRatioChart: the SVG parses, has a bar per figure with its text, bars
// of reciprocal ratios are as long as each other on opposite sides of the
// 1× line, and labels are escaped.
func TestRatioChart(t *testing.T) {
	c := &Chart{Title: "ToolsCall <in process> & HTTP", Subtitle: "peer's time ÷ rpcgen's", Panels: []Panel{{
		Title: "time per call", Ratio: true, Left: "peer faster", Right: "rpcgen faster",
		Groups: []Group{
			{Label: "add/c=1", Bars: []Bar{{Series: "gosdk", Value: 4, Text: "4.00×"}, {Series: "mcpgo", Value: 0.25, Text: "0.25×"}}},
			{Label: "echo/c=16", Bars: []Bar{{Series: "gosdk", Value: 2, Text: "2.00×"}}},
		},
	}}}
	els := parse(t, c.SVG())
	var bars, texts []*element
	var line *element
	for _, e := range els {
		switch {
		case e.name == "rect" && e.attrs["class"] == "bar":
			bars = append(bars, e)
		case e.name == "text":
			texts = append(texts, e)
		case e.name == "line":
			line = e
		}
	}
	if len(bars) != 3 || line == nil {
		t.Fatalf("%d bars, line %v; want 3 and a line", len(bars), line)
	}
	mid := num(t, line, "x1")
	w4, w025, w2 := num(t, bars[0], "width"), num(t, bars[1], "width"), num(t, bars[2], "width")
	if diff := w4 - w025; diff > 0.2 || diff < -0.2 {
		t.Errorf("4× is %.1f wide, 0.25× %.1f: want the same length", w4, w025)
	}
	if d := w4 - 2*w2; d > 0.3 || d < -0.3 {
		t.Errorf("4× is %.1f wide, 2× %.1f: want twice as long on a log scale", w4, w2)
	}
	if x := num(t, bars[0], "x"); x < mid-0.1 || x > mid+0.1 {
		t.Errorf("the 4× bar starts at %.1f, the 1× line is at %.1f", x, mid)
	}
	if x := num(t, bars[1], "x") + w025; x < mid-0.1 || x > mid+0.1 {
		t.Errorf("the 0.25× bar ends at %.1f, the 1× line is at %.1f", x, mid)
	}
	have := map[string]bool{}
	for _, e := range texts {
		have[e.text] = true
	}
	for _, want := range []string{"ToolsCall <in process> & HTTP", "add/c=1", "echo/c=16", "4.00×", "0.25×", "2.00×", "gosdk", "mcpgo", "1×", "rpcgen faster →", "← peer faster"} {
		if !have[want] {
			t.Errorf("no text %q in %v", want, have)
		}
	}
	if bars[0].attrs["fill"] == bars[1].attrs["fill"] || bars[0].attrs["fill"] != bars[2].attrs["fill"] {
		t.Errorf("colours %s %s %s: one per series", bars[0].attrs["fill"], bars[1].attrs["fill"], bars[2].attrs["fill"])
	}
}

// TestLinearChart: bars start at the same x, lengths proportional to the
// values; a zero value still parses.
func TestLinearChart(t *testing.T) {
	c := &Chart{Title: "t", Panels: []Panel{{Title: "requests/s", Groups: []Group{
		{Label: "requests/s", Bars: []Bar{{Series: "rpcgen", Value: 3000, Text: "3000"}, {Series: "mcp-go", Value: 1500, Text: "1500 (rpcgen 2.00×)"}, {Series: "x", Value: 0, Text: "0"}}},
	}}}}
	var bars []*element
	for _, e := range parse(t, c.SVG()) {
		if e.name == "rect" && e.attrs["class"] == "bar" {
			bars = append(bars, e)
		}
	}
	if len(bars) != 3 {
		t.Fatalf("%d bars", len(bars))
	}
	if num(t, bars[0], "x") != num(t, bars[1], "x") {
		t.Error("bars start at different x")
	}
	if r := num(t, bars[0], "width") / num(t, bars[1], "width"); r < 1.99 || r > 2.01 {
		t.Errorf("3000 and 1500: widths in ratio %.3f", r)
	}
}
