// Package jsonplain finds, eight bytes at a time, the runs of a JSON string's
// text that it holds as they are (printable ASCII but for the quote and the
// backslash): the word-at-a-time walk the runtime's scanner (jsonscan) and
// encoder (jsonenc) share. It is not for users.
package jsonplain

// Words returns the index j at or after i up to which s is printable
// ASCII but for '"' and '\\' (bytes a JSON string holds as they are), in whole
// words of eight bytes: the eight bytes at j, if there are eight, are not all
// such bytes. Callers walk on byte by byte from j; a string of plain text
// (a key, an identifier, a trace context header) costs a few steps a word.
func Words[S ~string | ~[]byte](s S, i int) int {
	const (
		ones  = 0x0101010101010101
		highs = 0x8080808080808080
	)
	for ; i+8 <= len(s); i += 8 {
		_ = s[i+7]
		x := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		q := x ^ ('"' * ones)
		bs := x ^ ('\\' * ones)
		// A byte's high bit is set below if it is below 0x20, a quote or a
		// backslash (each test has no false negative), or not ASCII.
		if ((x-0x20*ones)&^x|(q-ones)&^q|(bs-ones)&^bs|x)&highs != 0 {
			break
		}
	}
	return i
}
