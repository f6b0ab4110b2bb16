package sse

import (
	"strconv"
	"strings"
	"time"
)

// AppendEvent appends e to b as one event, which a reader dispatches as e,
// and returns the extended slice. It writes, each on its own line ending in
// "\n":
//
//   - "id: " and e.ID when e.HasID is set or e.ID is not empty ("id:" alone
//     for an empty ID, which resets a reader's last event ID);
//   - "event: " and e.Type, unless e.Type is "";
//   - "retry: " and e.Retry in milliseconds, rounded up, when e.Retry > 0;
//   - "data: " and a line of e.Data, for each line of e.Data split at CRLF,
//     LF and CR ("data:" alone for an empty line, so empty Data, as in a
//     priming event, still makes one data field and the event dispatches);
//
// then a blank line. A reader returns Data with its line ends turned into
// "\n", and ill-formed UTF-8 in any field replaced by U+FFFD. ID and Type
// must be single lines: a CR or LF in them is written as U+FFFD so that they
// cannot inject fields. A reader ignores an id whose value contains NUL.
func AppendEvent(b []byte, e Event) []byte {
	if e.HasID || e.ID != "" {
		b = appendField(b, "id:", e.ID)
	}
	if e.Type != "" {
		b = appendField(b, "event:", e.Type)
	}
	if e.Retry > 0 {
		ms := e.Retry / time.Millisecond
		if e.Retry%time.Millisecond != 0 {
			ms++
		}
		b = append(b, "retry: "...)
		b = strconv.AppendInt(b, int64(ms), 10)
		b = append(b, '\n')
	}
	b = appendLines(b, "data:", e.Data)
	return append(b, '\n')
}

// AppendComment appends a comment holding text to b, followed by a blank
// line, and returns the extended slice: ": text\n\n", or ":\n\n" for empty
// text. Readers ignore it; servers send it to keep idle connections open.
// Each line of a multi-line text (split at CRLF, LF and CR) becomes its own
// comment line, so text cannot inject fields or end an event.
//
// The blank line makes the comment a complete block, so it is safe between
// events. (MCP 2026-07-28 shows ":\r\n" as a keep-alive; both are comments.)
func AppendComment(b []byte, text string) []byte {
	b = appendLines(b, ":", text)
	return append(b, '\n')
}

// appendField appends the field name (ending in ':') with the single-line
// value, writing each CR or LF in value as U+FFFD.
func appendField(b []byte, name, value string) []byte {
	b = append(b, name...)
	if value != "" {
		b = append(b, ' ')
		for {
			i := indexLineEnd(value)
			if i < 0 {
				break
			}
			b = append(b, value[:i]...)
			b = append(b, "\uFFFD"...)
			value = value[i+1:]
		}
		b = append(b, value...)
	}
	return append(b, '\n')
}

// appendLines appends one line "prefix value" for each line of text, split
// at CRLF, LF and CR; the space is left out for an empty line.
func appendLines(b []byte, prefix, text string) []byte {
	for {
		line, rest, more := cutLine(text)
		b = append(b, prefix...)
		if line != "" {
			b = append(b, ' ')
			b = append(b, line...)
		}
		b = append(b, '\n')
		if !more {
			return b
		}
		text = rest
	}
}

// cutLine returns the first line of s and what follows its line end (CRLF,
// LF or CR); more is false when s has no line end.
func cutLine(s string) (line, rest string, more bool) {
	i := indexLineEnd(s)
	if i < 0 {
		return s, "", false
	}
	if s[i] == '\r' && i+1 < len(s) && s[i+1] == '\n' {
		return s[:i], s[i+2:], true
	}
	return s[:i], s[i+1:], true
}

// indexLineEnd returns the index of the first CR or LF in s, or -1. Two
// IndexByte scans beat one IndexAny on long, mostly single-line data.
func indexLineEnd(s string) int {
	i := strings.IndexByte(s, '\n')
	if i < 0 {
		return strings.IndexByte(s, '\r')
	}
	if j := strings.IndexByte(s[:i], '\r'); j >= 0 {
		return j
	}
	return i
}
