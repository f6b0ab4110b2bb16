// Package results is the service the result decoder run test generates code
// for: results of each kind a generated client decodes, the examples' among
// them (a note with times and tags, lists, strings, numbers, bytes, counts).
package results

import (
	"context"
	"encoding/json"
	"math/big"
	"time"
)

// Results returns one result of each kind.
type Results interface {
	// Note returns a note.
	Note(ctx context.Context, id string) (Note, error)
	// Notes lists notes.
	Notes(ctx context.Context) ([]Note, error)
	// Title returns a string.
	Title(ctx context.Context) (string, error)
	// Score returns a number.
	Score(ctx context.Context) (float64, error)
	// Blob returns bytes.
	Blob(ctx context.Context) ([]byte, error)
	// Counts returns counts by tag.
	Counts(ctx context.Context) (TagCounts, error)
	// Maybe returns a note or nil.
	Maybe(ctx context.Context) (*Note, error)
	// Everything returns a value of every kind.
	Everything(ctx context.Context) (Everything, error)
	// Tree returns a recursive value.
	Tree(ctx context.Context) (Tree, error)
	// Grid returns an array.
	Grid(ctx context.Context) ([3][2]int, error)
	// Keyed returns a map keyed by integers.
	Keyed(ctx context.Context) (map[int]string, error)
}

// Note is a note, as the notes example has one.
type Note struct {
	ID      string     `json:"id"`
	Title   string     `json:"title"`
	Body    string     `json:"body,omitempty"`
	Tags    []string   `json:"tags"`
	Created time.Time  `json:"created"`
	Due     *time.Time `json:"due,omitempty"`
	Pinned  bool       `json:"pinned"`
	Rating  *int       `json:"rating"`
}

// TagCounts counts notes by tag.
type TagCounts map[string]int

// Level is a named integer.
type Level int

// Name is a named string.
type Name string

// Base is embedded by value.
type Base struct {
	Kind    string `json:"kind"`
	Version uint16 `json:"version"`
}

// Extra is embedded by pointer.
type Extra struct {
	Origin string  `json:"origin"`
	Weight float32 `json:"weight"`
}

// Everything has a field of each kind.
type Everything struct {
	Base
	*Extra
	I8       int8                       `json:"i8"`
	I64      int64                      `json:"i64"`
	U8       uint8                      `json:"u8"`
	U64      uint64                     `json:"u64"`
	F32      float32                    `json:"f32"`
	F64      float64                    `json:"f64"`
	Quoted   int                        `json:"quoted,string"`
	QuotedP  *bool                      `json:"quotedP,string"`
	Level    Level                      `json:"level"`
	Name     Name                       `json:"name"`
	Names    []Name                     `json:"names"`
	Bytes    []byte                     `json:"bytes"`
	Raw      json.RawMessage            `json:"raw"`
	Any      any                        `json:"any"`
	Anys     []any                      `json:"anys"`
	When     time.Time                  `json:"when"`
	Map      map[string][]int           `json:"map"`
	Nested   map[Name]map[string]*Level `json:"nested"`
	Pair     [2]string                  `json:"pair"`
	PtrPtr   **string                   `json:"ptrPtr"`
	Notes    []*Note                    `json:"notes"`
	Big      *big.Int                   `json:"big"`
	Number   json.Number                `json:"number"`
	Inline   struct{ A, B int }         `json:"inline"`
	Omitted  string                     `json:"-"`
	Dash     string                     `json:"-,"`
	hidden   int
	NoTag    string
	Optional *Base `json:"optional,omitempty"`
}

// Tree is recursive.
type Tree struct {
	Label    string  `json:"label"`
	Children []*Tree `json:"children"`
	Parent   *Tree   `json:"parent,omitempty"`
}
