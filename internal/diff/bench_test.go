package diff

import (
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"
)

// largeOutput is about 2.9 MB of generated Go, the size of the output of
// bench/genbench's largest input: the golden cases' Go outputs over and
// over.
func largeOutput(b *testing.B) string {
	files, err := filepath.Glob(filepath.Join("..", "..", "testdata", "golden", "*.txtar"))
	if err != nil || len(files) == 0 {
		b.Fatalf("no golden cases: %v", err)
	}
	var gen []string
	for _, f := range files {
		ar, err := txtar.ParseFile(f)
		if err != nil {
			b.Fatal(err)
		}
		for _, af := range ar.Files {
			if strings.HasPrefix(af.Name, "want/") && strings.HasSuffix(af.Name, ".go") {
				gen = append(gen, string(af.Data))
			}
		}
	}
	var s strings.Builder
	for i := 0; s.Len() < 2900<<10; i++ {
		s.WriteString(gen[i%len(gen)])
	}
	return s.String()
}

// BenchmarkUnifiedScattered diffs the large output against itself with a
// line changed, added or removed every 400 lines, as --check does for a
// committed file edited by hand; B/op is what it allocates.
func BenchmarkUnifiedScattered(b *testing.B) {
	old := largeOutput(b)
	lines := strings.SplitAfter(old, "\n")
	var nb strings.Builder
	for i, l := range lines {
		switch {
		case i == 0 || i%400 != 0:
			nb.WriteString(l)
		case i%1200 == 400:
			nb.WriteString("// changed\n")
		case i%1200 == 800:
			nb.WriteString("// added\n" + l)
		}
	}
	edited := nb.String()
	b.SetBytes(int64(len(old)))
	b.ReportAllocs()
	for b.Loop() {
		if Unified("a", "b", edited, old) == "" {
			b.Fatal("no diff")
		}
	}
}
