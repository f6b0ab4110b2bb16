package main

import (
	"encoding/xml"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// svgTexts parses svg as XML (failing the test when it is not) and returns
// its text elements' contents and its bars' titles.
func svgTexts(t *testing.T, svg string) (texts, bars []string) {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(svg))
	var in string
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return texts, bars
		}
		if err != nil {
			t.Fatalf("chart is not XML: %v\n%s", err, svg)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			in = tok.Name.Local
		case xml.CharData:
			switch in {
			case "text":
				texts = append(texts, string(tok))
			case "title":
				bars = append(bars, string(tok))
			}
			in = ""
		}
	}
}

// TestCharts: a table with rpcgen and peers gets a chart with a bar per
// peer and row carrying the ratio the Markdown table gives, linked below
// the table; a table without rpcgen gets none.
func TestCharts(t *testing.T) {
	coll := canned(t)
	dir := t.TempDir()
	links, err := writeCharts(coll, filepath.Join(dir, "charts"), dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(links) != 1 || links["ToolsCall"] != "charts/ToolsCall.svg" {
		t.Fatalf("links %v: want ToolsCall's alone", links)
	}
	svg, err := os.ReadFile(filepath.Join(dir, "charts", "ToolsCall.svg"))
	if err != nil {
		t.Fatal(err)
	}
	texts, bars := svgTexts(t, string(svg))
	// Only the add row has rpcgen: gosdk 6.50× and mcpgo-validate 3.50×,
	// as in TestWriteMarkdown.
	want := []string{"add/inprocess/legacy/c=1, gosdk: 6.50×", "add/inprocess/legacy/c=1, mcpgo-validate: 3.50×"}
	if strings.Join(bars, "|") != strings.Join(want, "|") {
		t.Errorf("bars %q, want %q", bars, want)
	}
	joined := strings.Join(texts, "|")
	for _, w := range []string{"ToolsCall: rpcgen against each peer", "add/inprocess/legacy/c=1", "6.50×", "3.50×", "gosdk", "mcpgo-validate"} {
		if !strings.Contains(joined, w) {
			t.Errorf("chart lacks text %q: %s", w, joined)
		}
	}
	if strings.Contains(joined, "echo/stdio") {
		t.Error("the echo row, which has no rpcgen, is in the chart")
	}

	var md strings.Builder
	writeReport(&md, reportInfo{cfg: config{rounds: 2}, charts: links}, nil, coll)
	if !strings.Contains(md.String(), "| add/inprocess/legacy/c=1 |") ||
		!strings.Contains(md.String(), "\n![ToolsCall: each implementation's time per operation as a multiple of rpcgen's](charts/ToolsCall.svg)\n") {
		t.Errorf("report does not link the chart below the table:\n%s", md.String())
	}
}

// TestWriteMarked: between the markers the report replaces the old one and
// the rest stays; a file without them becomes the report.
func TestWriteMarked(t *testing.T) {
	path := filepath.Join(t.TempDir(), "RESULTS.md")
	head, tail := "# Results\n\n"+beginMark+"\n", endMark+"\n\n## Hand-written\n\nkept\n"
	if err := os.WriteFile(path, []byte(head+"old report\n"+tail), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, report := range []string{"new report\n", "newer report\n"} {
		if err := writeMarked(path, report); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(path); string(b) != head+report+tail {
			t.Errorf("got\n%s\nwant\n%s", b, head+report+tail)
		}
	}
	if err := os.WriteFile(path, []byte("no markers\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := writeMarked(path, "report\n"); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "report\n" {
		t.Errorf("got %q, want the report alone", b)
	}
}
