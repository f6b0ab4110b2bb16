// Package encodes is the service the result encoder run test generates code
// for: MCP tools whose results have every kind a generated encoder writes
// (and some it leaves to encoding/json), with the tag options that change
// what encoding/json writes.
package encodes

import (
	"context"
	"encoding/json"
	"math/big"
	"strconv"
	"strings"
	"time"
)

// Encodes returns one result of each kind; Impl returns what its fields
// hold.
type Encodes interface {
	// Note returns a note.
	Note(ctx context.Context) (Note, error)
	// Kinds returns a value of every kind.
	Kinds(ctx context.Context) (Kinds, error)
	// Omits returns a value whose fields are left out when empty or zero.
	Omits(ctx context.Context) (Omits, error)
	// Embeds returns a value with embedded structs.
	Embeds(ctx context.Context) (Embeds, error)
	// Counts returns a map.
	Counts(ctx context.Context) (Counts, error)
	// Maybe returns a note or nil.
	Maybe(ctx context.Context) (*Note, error)
	// Empty returns a struct without fields.
	Empty(ctx context.Context) (Empty, error)
	// Fallback returns a value holding what the encoders leave to encoding/json.
	Fallback(ctx context.Context) (Fallback, error)
	// Tree returns a recursive value: left to encoding/json.
	Tree(ctx context.Context) (Tree, error)
	// Big returns a value with a field that marshals itself: left to encoding/json.
	Big(ctx context.Context) (Big, error)
	// Total returns a number, a result that is not a JSON object.
	Total(ctx context.Context) (float64, error)
	// List returns notes or nils.
	List(ctx context.Context) ([]*Note, error)
	// Stamp returns a time.
	Stamp(ctx context.Context) (time.Time, error)
	// Raw returns JSON as it is.
	Raw(ctx context.Context) (json.RawMessage, error)
	// Table returns a map of names.
	Table(ctx context.Context) (map[string][]Name, error)
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
	Score   float64    `json:"score"`
}

// Level is a named integer.
type Level int

// Name is a named string.
type Name string

// Blob is a named []byte.
type Blob []byte

// Counts is a named map.
type Counts map[Name]int

// Empty has no fields.
type Empty struct{}

// Kinds has a field of each kind.
type Kinds struct {
	I        int                        `json:"i"`
	I8       int8                       `json:"i8"`
	I16      int16                      `json:"i16"`
	I32      int32                      `json:"i32"`
	I64      int64                      `json:"i64"`
	U        uint                       `json:"u"`
	U8       uint8                      `json:"u8"`
	U16      uint16                     `json:"u16"`
	U32      uint32                     `json:"u32"`
	U64      uint64                     `json:"u64"`
	Uptr     uintptr                    `json:"uptr"`
	F32      float32                    `json:"f32"`
	F64      float64                    `json:"f64"`
	F64s     []float64                  `json:"f64s"`
	F32s     []float32                  `json:"f32s"`
	S        string                     `json:"s"`
	B        bool                       `json:"b"`
	Level    Level                      `json:"level"`
	Name     Name                       `json:"name"`
	Names    []Name                     `json:"names"`
	Bytes    []byte                     `json:"bytes"`
	Blob     Blob                       `json:"blob"`
	ByteArr  [3]byte                    `json:"byteArr"`
	Raw      json.RawMessage            `json:"raw"`
	RawP     *json.RawMessage           `json:"rawP"`
	Number   json.Number                `json:"number"`
	When     time.Time                  `json:"when"`
	WhenP    *time.Time                 `json:"whenP"`
	Map      map[string][]int           `json:"map"`
	Nested   map[Name]map[string]*Level `json:"nested"`
	Notes    map[string]Note            `json:"notes"`
	Pair     [2]string                  `json:"pair"`
	None     [0]int                     `json:"none"`
	Grid     [2][2]int                  `json:"grid"`
	PtrPtr   **string                   `json:"ptrPtr"`
	SliceP   *[]Name                    `json:"sliceP"`
	ArrP     *[2]int                    `json:"arrP"`
	MapP     *map[string]*[]int         `json:"mapP"`
	NoteList []*Note                    `json:"noteList"`
	Values   []Note                     `json:"values"`
	Inline   struct{ A, B int }         `json:"inline"`
	Empty    Empty                      `json:"empty"`
	Quoted   int                        `json:"quoted,string"`
	QuotedP  *bool                      `json:"quotedP,string"`
	QuotedS  string                     `json:"quotedS,string"`
	QuotedF  float64                    `json:"quotedF,string"`
	QuotedU  uint8                      `json:"quotedU,string"`
	QuotedN  json.Number                `json:"quotedN,string"`
	HTMLKey  string                     `json:"<a&b>"`
	Omitted  string                     `json:"-"`
	Dash     string                     `json:"-,"`
	hidden   int
	NoTag    string
	Unicode  string `json:"ключ"`
}

// Zeroer is zero when negative, by its IsZero method.
type Zeroer struct{ N int }

// IsZero reports whether z counts as zero.
func (z Zeroer) IsZero() bool { return z.N < 0 }

// PtrZeroer is zero when negative, by its IsZero method on the pointer.
type PtrZeroer struct{ N int }

// IsZero reports whether z counts as zero.
func (z *PtrZeroer) IsZero() bool { return z.N < 0 }

// Point is a comparable struct.
type Point struct{ X, Y float64 }

// Omits has omitempty and omitzero fields of each kind; the first may be
// left out.
type Omits struct {
	S      string            `json:"s,omitempty"`
	I      int               `json:"i,omitempty"`
	U      uint16            `json:"u,omitempty"`
	F      float64           `json:"f,omitempty"`
	B      bool              `json:"b,omitempty"`
	P      *int              `json:"p,omitempty"`
	Sl     []int             `json:"sl,omitempty"`
	M      map[string]int    `json:"m,omitempty"`
	A      [1]int            `json:"a,omitempty"`
	A0     [0]int            `json:"a0,omitempty"`
	St     Point             `json:"st,omitempty"`
	Raw    json.RawMessage   `json:"raw,omitempty"`
	Num    json.Number       `json:"num,omitempty"`
	Time   time.Time         `json:"time,omitempty"`
	ZI     int               `json:"zi,omitzero"`
	ZF     float64           `json:"zf,omitzero"`
	ZS     string            `json:"zs,omitzero"`
	ZB     bool              `json:"zb,omitzero"`
	ZSl    []int             `json:"zsl,omitzero"`
	ZM     map[string]string `json:"zm,omitzero"`
	ZP     *string           `json:"zp,omitzero"`
	ZTime  time.Time         `json:"ztime,omitzero"`
	ZTimeP *time.Time        `json:"ztimeP,omitzero"`
	ZPoint Point             `json:"zpoint,omitzero"`
	ZArr   [2]int            `json:"zarr,omitzero"`
	Zer    Zeroer            `json:"zer,omitzero"`
	ZerP   *Zeroer           `json:"zerP,omitzero"`
	PZer   PtrZeroer         `json:"pzer,omitzero"`
	Both   int               `json:"both,omitempty,omitzero"`
	QS     int               `json:"qs,omitempty,string"`
}

// Base is embedded by value.
type Base struct {
	Kind    string `json:"kind"`
	Version uint16 `json:"version"`
	Shadow  int    `json:"shadow"`
}

// Extra is embedded by pointer.
type Extra struct {
	Origin string  `json:"origin"`
	Weight float32 `json:"weight"`
}

// Ptrs is embedded by pointer, first.
type Ptrs struct {
	First string `json:"first"`
}

// Embeds embeds structs by value and by pointer; its first member is
// behind a pointer.
type Embeds struct {
	*Ptrs
	Base
	*Extra
	Shadow string `json:"shadow"`
	Own    int    `json:"own"`
}

// Mode is a mode, written as text.
type Mode int

// MarshalText writes the mode.
func (m Mode) MarshalText() ([]byte, error) { return []byte("mode<" + strconv.Itoa(int(m)) + ">"), nil }

// UnmarshalText reads a mode.
func (m *Mode) UnmarshalText(b []byte) error {
	n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(string(b), "mode<"), ">"))
	*m = Mode(n)
	return err
}

// Weekday is a named byte.
type Weekday byte

// Fallback holds values the encoders leave to encoding/json: interfaces,
// types that marshal themselves (by value and by pointer receiver), maps
// keyed by integers or text, a named byte type's slice, a recursive type.
type Fallback struct {
	Any     any             `json:"any"`
	Name    string          `json:"name"`
	Anys    []any           `json:"anys"`
	AnyMap  map[string]any  `json:"anyMap"`
	OptAny  any             `json:"optAny,omitempty"`
	ZeroAny any             `json:"zeroAny,omitzero"`
	Keyed   map[int]string  `json:"keyed"`
	Modes   map[Mode]int    `json:"modes"`
	Mode    Mode            `json:"mode"`
	ModeP   *Mode           `json:"modeP"`
	BigV    big.Int         `json:"bigV"`
	BigP    *big.Int        `json:"bigP"`
	Bigs    []big.Int       `json:"bigs"`
	Days    []Weekday       `json:"days"`
	Tree    *Tree           `json:"tree"`
	Trees   map[string]Tree `json:"trees"`
}

// Tree is recursive.
type Tree struct {
	Label    string  `json:"label"`
	Children []*Tree `json:"children"`
}

// Big holds a type that marshals itself.
type Big struct {
	N *big.Int `json:"n"`
}

// Impl returns its fields.
type Impl struct {
	NoteV     Note
	KindsV    Kinds
	OmitsV    Omits
	EmbedsV   Embeds
	CountsV   Counts
	MaybeV    *Note
	FallbackV Fallback
	TreeV     Tree
	BigV      Big
	TotalV    float64
	ListV     []*Note
	StampV    time.Time
	RawV      json.RawMessage
	TableV    map[string][]Name
}

var _ Encodes = (*Impl)(nil)

func (i *Impl) Note(context.Context) (Note, error)           { return i.NoteV, nil }
func (i *Impl) Kinds(context.Context) (Kinds, error)         { return i.KindsV, nil }
func (i *Impl) Omits(context.Context) (Omits, error)         { return i.OmitsV, nil }
func (i *Impl) Embeds(context.Context) (Embeds, error)       { return i.EmbedsV, nil }
func (i *Impl) Counts(context.Context) (Counts, error)       { return i.CountsV, nil }
func (i *Impl) Maybe(context.Context) (*Note, error)         { return i.MaybeV, nil }
func (i *Impl) Empty(context.Context) (Empty, error)         { return Empty{}, nil }
func (i *Impl) Fallback(context.Context) (Fallback, error)   { return i.FallbackV, nil }
func (i *Impl) Tree(context.Context) (Tree, error)           { return i.TreeV, nil }
func (i *Impl) Big(context.Context) (Big, error)             { return i.BigV, nil }
func (i *Impl) Total(context.Context) (float64, error)       { return i.TotalV, nil }
func (i *Impl) List(context.Context) ([]*Note, error)        { return i.ListV, nil }
func (i *Impl) Stamp(context.Context) (time.Time, error)     { return i.StampV, nil }
func (i *Impl) Raw(context.Context) (json.RawMessage, error) { return i.RawV, nil }
func (i *Impl) Table(context.Context) (map[string][]Name, error) {
	return i.TableV, nil
}
