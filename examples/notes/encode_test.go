package main

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"
)

// TestResultEncoders: the generated encoders of the tools' results write
// what encoding/json writes, which the server trusts without checking.
func TestResultEncoders(t *testing.T) {
	at := time.Date(2026, 3, 4, 5, 6, 7, 890, time.FixedZone("CET", 3600))
	for _, n := range []Note{
		{},
		{ID: "n1", Text: "plain", Tags: []string{}, Priority: "high", Created: at},
		{ID: "n<2>", Text: "a & b <i>\u2028\"quoted\"\n\t\x01 \xff é 😀", Tags: []string{"x", "", "<y>"}, Priority: "low", Created: at.UTC()},
	} {
		want, err := json.Marshal(n)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendNoteJSON([]byte{}, &n); !bytes.Equal(got, want) {
			t.Errorf("note:\n got %s\nwant %s", got, want)
		}
	}
	r := ReindexReport{Notes: 3, Terms: -1}
	want, _ := json.Marshal(r)
	if got := appendReindexReportJSON(nil, &r); !bytes.Equal(got, want) {
		t.Errorf("report: got %s, want %s", got, want)
	}
}
