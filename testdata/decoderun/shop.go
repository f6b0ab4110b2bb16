// Package shop is the service the decoder run test generates code for: one
// type of each kind the generated decoders handle, with constraints.
package shop

import (
	"context"
	"encoding/json"
	"time"
)

// Shop sells items.
type Shop interface {
	// Search finds items.
	Search(ctx context.Context, query string, limit int, kind Kind, tags []string, near *Point) ([]Item, error)
	// Put stores an item.
	Put(ctx context.Context, item Item) error
	// Schedule stores a plan.
	Schedule(ctx context.Context, plan *Plan) error
	// Ping takes nothing.
	Ping(ctx context.Context) error
}

// Kind is a kind of item.
type Kind string

// The kinds.
const (
	Book  Kind = "book"
	Music Kind = "music"
)

// Level says how urgent.
type Level int

// The levels.
const (
	LevelLow  Level = 1
	LevelHigh Level = 3
)

// Point is a place.
type Point struct {
	X float64 `json:"x" jsonschema:"minimum=-180,maximum=180"`
	Y float64 `json:"y" jsonschema:"exclusiveMinimum=-90,exclusiveMaximum=90"`
}

// Base is embedded through a pointer.
type Base struct {
	ID  string `json:"id" jsonschema:"pattern=^[a-z0-9-]+$"`
	Rev uint32 `json:"rev,omitempty"`
}

// Item is what the shop sells.
type Item struct {
	*Base
	Name   string            `json:"name" jsonschema:"minLength=1,maxLength=10"`
	Price  float64           `json:"price" jsonschema:"minimum=0,multipleOf=0.01"`
	Stock  int16             `json:"stock,omitempty" jsonschema:"maximum=1000"`
	Count  int64             `json:"count,string,omitempty"`
	Level  Level             `json:"level,omitempty"`
	Tags   []string          `json:"tags,omitempty" jsonschema:"maxItems=3,uniqueItems=true"`
	Attrs  map[string]string `json:"attrs,omitempty" jsonschema:"maxProperties=2"`
	Stock2 map[Kind]int      `json:"stockByKind,omitempty"`
	Queue  map[Level]int     `json:"queue,omitempty"`
	Added  time.Time         `json:"added,omitzero"`
	Extra  json.RawMessage   `json:"extra,omitempty"`
	Blob   []byte            `json:"blob,omitempty"`
	Any    any               `json:"any,omitempty"`
	Size   [2]int            `json:"size,omitzero"`
	Where  *Point            `json:"where,omitempty"`
	Wait   Duration          `json:"wait,omitempty"`
}

// Duration is written as a string such as "1m30s".
type Duration time.Duration

// MarshalText implements encoding.TextMarshaler.
func (d Duration) MarshalText() ([]byte, error) { return []byte(time.Duration(d).String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	*d = Duration(v)
	return err
}

// Plan is a step and the plans that follow it.
type Plan struct {
	Step string  `json:"step"`
	Even uint8   `json:"even,omitempty" jsonschema:"multipleOf=2"`
	Then []*Plan `json:"then,omitempty"`
}
