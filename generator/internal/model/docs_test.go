package model

import (
	"testing"
)

func TestSplitParamDocs(t *testing.T) {
	doc := `Lend lends a book.

Note: this is prose.

book: the book.
- member: who borrows it,
  over two lines.
* days: how long.
other: not a param.

It returns the due date.`
	params := []*Param{{Name: "book", JSONKey: "book"}, {Name: "member", JSONKey: "member"}, {Name: "days", JSONKey: "d"}}
	rest := SplitParamDocs(doc, params)
	wantRest := "Lend lends a book.\n\nNote: this is prose.\n\nIt returns the due date."
	if rest != wantRest {
		t.Errorf("rest:\n%q\nwant\n%q", rest, wantRest)
	}
	for i, want := range []string{"the book.", "who borrows it, over two lines.", "how long. other: not a param."} {
		if params[i].Doc != want {
			t.Errorf("%s: %q, want %q", params[i].Name, params[i].Doc, want)
		}
	}
	if got := SplitParamDocs("No params here: none.", params); got != "No params here: none." {
		t.Errorf("prose changed: %q", got)
	}
}
