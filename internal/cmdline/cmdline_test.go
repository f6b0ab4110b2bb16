package cmdline

import (
	"io"
	"slices"
	"testing"
)

func TestSplitWords(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
		err  string
	}{
		{"  Calc\t--out=x.go ", []string{"Calc", "--out=x.go"}, ""},
		{`"--contact=Shop Team" "a\tb" Calc`, []string{"--contact=Shop Team", "a\tb", "Calc"}, ""},
		{`--contact="Shop Team"`, []string{`--contact="Shop`, `Team"`}, ""}, // as go generate reads it
		{`"open`, nil, "unterminated quoted argument"},
		{`"a"b`, nil, "no space after quoted argument"},
		{`"\q"`, nil, `bad quoted argument "\q"`},
	} {
		got, err := SplitWords(tc.in)
		if msg := errString(err); msg != tc.err || !slices.Equal(got, tc.want) {
			t.Errorf("SplitWords(%q) = %q, %q; want %q, %q", tc.in, got, msg, tc.want, tc.err)
		}
	}
}

// TestFlagSet parses a command line as rpcgen does and checks the options
// it fills, defaults included.
func TestFlagSet(t *testing.T) {
	var o Options
	fs := NewFlagSet(&o, io.Discard)
	err := fs.Parse([]string{"-o", "x.go", "--tags=a,b", "--server=http://a", "--server=http://b", "--no-discover", "Calc", "Other"})
	if err != nil {
		t.Fatal(err)
	}
	if o.Out != "x.go" || !slices.Equal(o.Tags, []string{"a", "b"}) || !slices.Equal(o.Servers, []string{"http://a", "http://b"}) ||
		!o.NoDiscover || o.Dir != "." || o.APIVersion != "0.0.0" || !slices.Equal(fs.Args(), []string{"Calc", "Other"}) {
		t.Errorf("parsed %+v, args %q", o, fs.Args())
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
