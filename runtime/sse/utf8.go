package sse

import "unicode/utf8"

// appendDecoded appends s to dst as the WHATWG Encoding Standard's UTF-8
// decoder reads it: well-formed sequences are kept and each maximal subpart
// of an ill-formed one becomes a single U+FFFD. (utf8.DecodeRune would
// replace every byte of a truncated sequence, which browsers do not.)
func appendDecoded(dst, s []byte) []byte {
	if utf8.Valid(s) {
		return append(dst, s...)
	}
	for len(s) > 0 {
		if s[0] < utf8.RuneSelf {
			dst = append(dst, s[0])
			s = s[1:]
			continue
		}
		r, size := utf8.DecodeRune(s)
		if r != utf8.RuneError || size > 1 {
			dst = append(dst, s[:size]...)
			s = s[size:]
			continue
		}
		dst = append(dst, "\uFFFD"...)
		s = s[illFormedLen(s):]
	}
	return dst
}

// illFormedLen returns the length of the maximal subpart of the ill-formed
// UTF-8 sequence s starts with: its lead byte and the continuation bytes
// after it that could still have begun a well-formed sequence.
func illFormedLen(s []byte) int {
	need := 0
	lo, hi := byte(0x80), byte(0xBF) // the range the next byte must be in
	switch c := s[0]; {
	case c >= 0xC2 && c <= 0xDF:
		need = 1
	case c == 0xE0:
		need, lo = 2, 0xA0 // no overlong forms
	case c == 0xED:
		need, hi = 2, 0x9F // no surrogates
	case c >= 0xE1 && c <= 0xEF:
		need = 2
	case c == 0xF0:
		need, lo = 3, 0x90 // no overlong forms
	case c == 0xF4:
		need, hi = 3, 0x8F // nothing above U+10FFFF
	case c >= 0xF1 && c <= 0xF3:
		need = 3
	default:
		return 1 // a continuation byte, or a byte that never occurs
	}
	n := 1
	for n <= need && n < len(s) && s[n] >= lo && s[n] <= hi {
		n++
		lo, hi = 0x80, 0xBF
	}
	return n
}
