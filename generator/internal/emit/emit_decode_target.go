package emit

// Where a decoder puts what it reads: targets (an assignable expression and
// its address) and the scope of the function being written.

import "github.com/dave/jennifer/jen"

// target is where a decoded value goes: val is the assignable expression,
// addr its address.
type target struct {
	val, addr func() *jen.Statement
	deref     bool // val is *x
	derefAddr bool // addr is *x too (a pointer behind a pointer)
}

func selectorTarget(base string, names ...string) target {
	sel := func() *jen.Statement {
		s := jen.Id(base)
		for _, n := range names {
			s = s.Dot(n)
		}
		return s
	}
	return target{val: sel, addr: func() *jen.Statement { return jen.Op("&").Add(sel()) }}
}

func localTarget(name string) target {
	return selectorTarget(name)
}

// elemOf is the target *t.val, for the value a pointer points to.
func (t target) elemOf() target {
	return target{val: func() *jen.Statement { return jen.Op("*").Add(t.val()) }, addr: t.val, deref: true, derefAddr: t.deref}
}

// index is t.val[i]; arrays index through a pointer.
func (t target) index(i string) target {
	v := func() *jen.Statement {
		if t.derefAddr {
			return jen.Parens(t.addr()).Index(jen.Id(i)) // (*p)[i], not *(p[i])
		}
		if t.deref {
			return t.addr().Index(jen.Id(i))
		}
		return t.val().Index(jen.Id(i))
	}
	return target{val: v, addr: func() *jen.Statement { return jen.Op("&").Add(v()) }}
}

// decodeScope is the function being written.
type decodeScope struct {
	d     func() *jen.Statement // the decoder as helpers take it: d or &d
	owner string                // what names of unnamed structs' helpers start from: "NewNoteAuthor"
	path  string                // the same in Go syntax, for comments: "NewNote.Author"
}

// dcall is d.<method>(args...).
func dcall(method string, args ...jen.Code) *jen.Statement {
	return jen.Id("d").Dot(method).Call(args...)
}
