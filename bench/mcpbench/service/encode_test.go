package service

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestResultEncoders: the generated encoders of the benchmark's results,
// the large one's LargeRecords included, write what encoding/json writes.
func TestResultEncoders(t *testing.T) {
	check := func(name string, got []byte, v any) {
		t.Helper()
		want, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: the generated encoder wrote %d bytes, encoding/json %d:\n got %.200s\nwant %.200s", name, len(got), len(want), got, want)
		}
	}
	large := Records{Items: LargeRecords}
	check("large", appendRecordsJSON(nil, &large), large)
	check("no records", appendRecordsJSON(nil, &Records{}), Records{})
	sum := Sum{Sum: -42}
	check("sum", appendSumJSON(nil, &sum), sum)
	echo := Echoed{Text: "<a href=\"x\">&amp;</a>\u2028\n\xff"}
	check("echo", appendEchoedJSON(nil, &echo), echo)
}
