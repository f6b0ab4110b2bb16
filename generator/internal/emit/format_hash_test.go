package emit

import "testing"

// TestLineHash checks lineHash against FNV-1a's published values and that it
// reads the first line only: the cuts of splitTopLevel, and with them the
// format cache's keys, depend on it.
func TestLineHash(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want uint32
	}{
		{"", 0x811c9dc5},
		{"a", 0xe40c292c},
		{"foobar", 0xbf9cf968},
		{"foobar\nrest", 0xbf9cf968},
	} {
		if got := lineHash([]byte(tc.in)); got != tc.want {
			t.Errorf("lineHash(%q) = %#x, want %#x", tc.in, got, tc.want)
		}
	}
}
