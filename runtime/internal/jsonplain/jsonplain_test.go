package jsonplain

import (
	"slices"
	"testing"
)

func plainByte(c byte) bool { return c >= 0x20 && c < 0x80 && c != '"' && c != '\\' }

// TestWords checks Words's contract on every position of strings
// with each byte value in each place of a word.
func TestWords(t *testing.T) {
	check := func(b []byte) {
		for i := 0; i <= len(b); i++ {
			j := Words(b, i)
			if j < i || (j-i)%8 != 0 || j > len(b) {
				t.Fatalf("Words(%q, %d) = %d", b, i, j)
			}
			for _, c := range b[i:j] {
				if !plainByte(c) {
					t.Fatalf("Words(%q, %d) = %d: passed over %q", b, i, j, c)
				}
			}
			if j+8 <= len(b) && !slices.ContainsFunc(b[j:j+8], func(c byte) bool { return !plainByte(c) }) {
				t.Fatalf("Words(%q, %d) = %d: stopped before a plain word", b, i, j)
			}
			if got := Words(string(b), i); got != j {
				t.Fatalf("Words on a string: %d, on bytes %d", got, j)
			}
		}
	}
	for c := range 256 {
		for pos := range 8 {
			b := []byte("abcdefghijklmnopqrstuvwx")
			b[8+pos] = byte(c)
			check(b)
		}
	}
	check(nil)
	check([]byte("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"))
}

func FuzzWords(f *testing.F) {
	f.Add([]byte("traceparent 00-0af7651916cd43dd8448eb211c80319c \"x\\y\" é\x01\x7f"))
	f.Fuzz(func(t *testing.T, b []byte) {
		for i := 0; i <= len(b); i++ {
			j := Words(b, i)
			if j < i || (j-i)%8 != 0 || j > len(b) || slices.ContainsFunc(b[i:j], func(c byte) bool { return !plainByte(c) }) ||
				j+8 <= len(b) && !slices.ContainsFunc(b[j:j+8], func(c byte) bool { return !plainByte(c) }) {
				t.Fatalf("Words(%q, %d) = %d", b, i, j)
			}
		}
	})
}
