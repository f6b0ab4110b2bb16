// Package diag holds the generator's errors in the input, each at a
// position in the user's source, and the collector that gathers all of a
// run's, so that a user sees every problem at once.
package diag

import (
	"cmp"
	"fmt"
	"go/token"
	"path/filepath"
	"slices"
	"strings"
)

// Error is a problem in the input, located at a position in the user's source.
type Error struct {
	Pos token.Position // Filename is absolute; it may be invalid for problems without a place
	Msg string
}

func (e *Error) Error() string {
	if !e.Pos.IsValid() {
		return e.Msg
	}
	return fmt.Sprintf("%s: %s", e.Pos, e.Msg)
}

// List is every problem found in one run, sorted by position, so a user
// fixes them all at once instead of one per run.
type List []*Error

func (l List) Error() string { return l.Format("") }

// Format prints one "file:line:col: message" line per problem, with file
// names relative to dir when dir is not empty and the file lies below it.
func (l List) Format(dir string) string {
	var b strings.Builder
	for _, e := range l {
		pos := e.Pos
		if dir != "" && pos.Filename != "" {
			if rel, err := filepath.Rel(dir, pos.Filename); err == nil && !strings.HasPrefix(rel, "..") {
				pos.Filename = filepath.ToSlash(rel)
			}
		}
		if pos.IsValid() {
			fmt.Fprintf(&b, "%s: %s\n", pos, e.Msg)
		} else {
			fmt.Fprintf(&b, "rpcgen: %s\n", e.Msg)
		}
	}
	return b.String()
}

// Collector gathers errors while loading so that all of them are reported.
type Collector struct {
	Fset *token.FileSet
	List List
	// invalidTypes is set when a type in a signature could not be resolved:
	// the package's type errors then explain what is wrong.
	InvalidTypes bool
}

// At records a problem at pos.
func (c *Collector) At(pos token.Pos, format string, args ...any) {
	var p token.Position
	if c.Fset != nil && pos.IsValid() {
		p = c.Fset.Position(pos)
	}
	c.List = append(c.List, &Error{Pos: p, Msg: fmt.Sprintf(format, args...)})
}

// Err returns the problems recorded, sorted by position, as a List, or nil.
func (c *Collector) Err() error {
	if len(c.List) == 0 {
		return nil
	}
	slices.SortStableFunc(c.List, func(a, b *Error) int {
		return cmp.Or(
			cmp.Compare(a.Pos.Filename, b.Pos.Filename),
			cmp.Compare(a.Pos.Line, b.Pos.Line),
			cmp.Compare(a.Pos.Column, b.Pos.Column),
		)
	})
	return c.List
}

// AtPosition records an error at an already resolved position.
func (c *Collector) AtPosition(pos token.Position, format string, args ...any) {
	c.List = append(c.List, &Error{Pos: pos, Msg: fmt.Sprintf(format, args...)})
}

// Position resolves pos, the zero Position when it has none.
func (c *Collector) Position(pos token.Pos) token.Position {
	if c.Fset == nil || !pos.IsValid() {
		return token.Position{}
	}
	return c.Fset.Position(pos)
}
