package generator

import (
	"go/token"

	"github.com/rpcgen/rpcgen/generator/internal/diag"
)

// Error is a problem in the input, located at a position in the user's source.
type Error struct {
	Pos token.Position // Filename is absolute; it may be invalid for problems without a place
	Msg string
}

func (e *Error) Error() string { return (*diag.Error)(e).Error() }

// ErrorList is every problem found in one run, sorted by position, so a user
// fixes them all at once instead of one per run.
type ErrorList []*Error

func (l ErrorList) Error() string { return l.Format("") }

// Format prints one "file:line:col: message" line per problem, with file
// names relative to dir when dir is not empty and the file lies below it.
func (l ErrorList) Format(dir string) string {
	d := make(diag.List, len(l))
	for i, e := range l {
		d[i] = (*diag.Error)(e)
	}
	return d.Format(dir)
}

// errorList is the internal packages' list as an ErrorList.
func errorList(d diag.List) ErrorList {
	l := make(ErrorList, len(d))
	for i, e := range d {
		l[i] = (*Error)(e)
	}
	return l
}
