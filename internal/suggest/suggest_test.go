package suggest

import "testing"

func TestNearest(t *testing.T) {
	cases := []struct {
		name       string
		candidates []string
		want       string
		ok         bool
	}{
		{"ot", []string{"out", "dir", "tags"}, "out", true},
		{"shema-dir", []string{"schema-dir", "docs"}, "schema-dir", true},
		{"chekc", []string{"check", "no-cache"}, "check", true},
		{"TodoServce", []string{"Store", "TodoService"}, "TodoService", true},
		{"todoservice", []string{"TodoService"}, "TodoService", true},
		{"Delet", []string{"Add", "Delete"}, "Delete", true},
		{"zzz", []string{"out", "dir"}, "", false},
		{"Calculator", nil, "", false},
	}
	for _, c := range cases {
		got, ok := Nearest(c.name, c.candidates)
		if ok != c.ok || (ok && got != c.want) {
			t.Errorf("Nearest(%q, %q) = %q, %v; want %q, %v", c.name, c.candidates, got, ok, c.want, c.ok)
		}
	}
	if got := DidYouMean("ot", []string{"out"}); got != " (did you mean out?)" {
		t.Errorf("DidYouMean = %q", got)
	}
}
