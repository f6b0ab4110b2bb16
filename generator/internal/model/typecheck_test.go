package model

import (
	"go/types"
	"testing"

	"github.com/rpcgen/rpcgen/generator/internal/goldentest"
)

// declaredMethod must answer as the method sets do whenever it answers.
func TestImplementsShortcut(t *testing.T) {
	pkg, _, _ := goldentest.CheckSource(t, `package p

type Plain struct{ A int }
type WithValue struct{}
func (WithValue) MarshalJSON() ([]byte, error) { return nil, nil }
type WithPtr struct{}
func (*WithPtr) UnmarshalJSON([]byte) error { return nil }
type Embeds struct{ WithPtr }
type EmbedsPtr struct{ *WithValue }
type Iface interface{ MarshalText() ([]byte, error) }
type Str string
func (Str) MarshalText() ([]byte, error) { return nil, nil }
type PtrNamed *WithValue
type Alias = WithPtr
type Gen[T any] struct{ V T }
func (Gen[T]) MarshalJSON() ([]byte, error) { return nil, nil }
type Slice []WithValue
type Map map[Str]int

var (
	GenInt    Gen[int]
	GenStrPtr *Gen[string]
)
`)
	var typs []types.Type
	for _, name := range pkg.Scope().Names() {
		obj := pkg.Scope().Lookup(name)
		if tn, ok := obj.(*types.TypeName); ok {
			if n, ok := tn.Type().(*types.Named); ok && n.TypeParams().Len() > 0 {
				continue
			}
			typs = append(typs, tn.Type(), types.NewPointer(tn.Type()))
		} else {
			typs = append(typs, obj.Type())
		}
	}
	typs = append(typs, types.Typ[types.String], types.NewSlice(types.Typ[types.Int]), types.NewPointer(types.NewPointer(pkg.Scope().Lookup("WithPtr").Type())))
	for _, typ := range typs {
		for _, m := range []string{"MarshalJSON", "UnmarshalJSON", "MarshalText", "UnmarshalText"} {
			want := false
			for _, tt := range []types.Type{typ, types.NewPointer(typ)} {
				ms := types.NewMethodSet(tt)
				for i := range ms.Len() {
					if ms.At(i).Obj().Name() == m {
						want = true
					}
				}
			}
			if got := Implements(typ, m); got != want {
				t.Errorf("implements(%s, %s) = %v, want %v", typ, m, got, want)
			}
		}
	}
}
