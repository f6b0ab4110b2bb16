package genbench

import (
	"fmt"
	"strings"
)

// families is how many independent type trees the nested200 input has; each
// method uses one of them.
const families = 10

// wideSource is the nested200 input: one interface of 200 documented
// methods whose params and results are nested types, most of them from the
// documented model package (so the generator also reads the doc comments of
// another package).
func wideSource() string {
	var b strings.Builder
	fmt.Fprintf(&b, `// Package wide is a synthetic input for the generator benchmarks: one
// interface of 200 methods over nested documented types.
package wide

import (
	"context"
	"time"

	"%s/wide/model"
)

// Wide is a large service: 200 methods over nested records.
type Wide interface {
`, ModulePath)
	for i := range 200 {
		f, name := i%families, fmt.Sprintf("Item%03d", i)
		switch (i / families) % 5 {
		case 0:
			fmt.Fprintf(&b, "\t// Get%[1]s returns the record with the given id.\n\t//\n\t// id: the record's id.\n\tGet%[1]s(ctx context.Context, id string) (model.Record%[2]d, error)\n\n", name, f)
		case 1:
			fmt.Fprintf(&b, "\t// Put%[1]s stores a record, replacing any with the same id.\n\tPut%[1]s(ctx context.Context, rec model.Record%[2]d) error\n\n", name, f)
		case 2:
			fmt.Fprintf(&b, "\t// List%[1]s returns a page of records in a state.\n\t//\n\t// page: where to start and how many.\n\t// status: the state the records are in.\n\tList%[1]s(ctx context.Context, page Page, status model.Status%[2]d) (ListResult%[2]d, error)\n\n", name, f)
		case 3:
			fmt.Fprintf(&b, "\t// Find%[1]s returns the branches with any of the keys, at a level or above,\n\t// changed since a time.\n\tFind%[1]s(ctx context.Context, keys []string, minLevel model.Level%[2]d, since time.Time) ([]model.Branch%[2]d, error)\n\n", name, f)
		case 4:
			fmt.Fprintf(&b, "\t// Index%[1]s returns every trunk by its id.\n\tIndex%[1]s(ctx context.Context) (map[string]model.Trunk%[2]d, error)\n\n", name, f)
		}
	}
	b.WriteString(`}

// Page selects part of a list.
type Page struct {
	// Cursor is where the page starts; the first page when empty.
	Cursor string ` + "`json:\"cursor,omitempty\"`" + `
	// Limit is the most records to return.
	Limit int ` + "`json:\"limit\" jsonschema:\"minimum=1,maximum=500\"`" + `
}
`)
	for f := range families {
		fmt.Fprintf(&b, `
// ListResult%[1]d is one page of records.
type ListResult%[1]d struct {
	// Items on this page.
	Items []model.Record%[1]d `+"`json:\"items\"`"+`
	// Next is the cursor of the next page; empty on the last.
	Next string `+"`json:\"next,omitempty\"`"+`
}
`, f)
	}
	return b.String()
}

// modelSource declares, per family, a four-level tree of documented
// structs (Record, Trunk, Branch, Leaf) with slices, maps, pointers,
// time.Time, jsonschema tags, a string enum and an integer enum.
func modelSource() string {
	var b strings.Builder
	b.WriteString(`// Package model holds the records of the wide service.
package model

import "time"
`)
	for f := range families {
		fmt.Fprintf(&b, `
// Status%[1]d is the state of a record of family %[1]d.
type Status%[1]d string

// The states a record goes through, in order.
const (
	// Status%[1]dDraft is a record not yet submitted.
	Status%[1]dDraft Status%[1]d = "draft"
	// Status%[1]dReview is a record waiting for review.
	Status%[1]dReview Status%[1]d = "review"
	// Status%[1]dActive is a record in use.
	Status%[1]dActive Status%[1]d = "active"
	// Status%[1]dArchived is a record kept for history only.
	Status%[1]dArchived Status%[1]d = "archived"
)

// Level%[1]d ranks how much something matters.
type Level%[1]d int

// The levels, lowest first.
const (
	Level%[1]dLow  Level%[1]d = iota + 1 // Low can wait.
	Level%[1]dMid                       // Mid is the default.
	Level%[1]dHigh                      // High comes first.
)

// Leaf%[1]d is the innermost part of a record.
type Leaf%[1]d struct {
	// Key names the leaf within its branch.
	Key string `+"`json:\"key\" jsonschema:\"minLength=1,maxLength=64,pattern=^[a-z][a-z0-9_]*$\"`"+`
	// Weight of the leaf.
	Weight float64 `+"`json:\"weight\" jsonschema:\"minimum=0,maximum=1000\"`"+`
	// Level of the leaf.
	Level Level%[1]d `+"`json:\"level\"`"+`
	// Seen is when the leaf was last observed.
	Seen time.Time `+"`json:\"seen\"`"+`
	Notes []string `+"`json:\"notes,omitempty\" jsonschema:\"maxItems=8,maxLength=200\"`"+` // Notes are free text.
}

// Branch%[1]d groups leaves.
type Branch%[1]d struct {
	// Name of the branch, unique within its trunk.
	Name string `+"`json:\"name\" jsonschema:\"minLength=1\"`"+`
	// Leaves in the order they were added.
	Leaves []Leaf%[1]d `+"`json:\"leaves\" jsonschema:\"maxItems=100\"`"+`
	// ByKey indexes extra leaves by their key.
	ByKey map[string]Leaf%[1]d `+"`json:\"byKey,omitempty\"`"+`
	// Status of the branch.
	Status Status%[1]d `+"`json:\"status\"`"+`
	// Updated is when the branch last changed, if ever.
	Updated *time.Time `+"`json:\"updated,omitempty\"`"+`
}

// Trunk%[1]d is the main body of a record.
type Trunk%[1]d struct {
	// ID identifies the trunk.
	ID string `+"`json:\"id\" jsonschema:\"minLength=1,maxLength=36\"`"+`
	// Branches of the trunk.
	Branches []Branch%[1]d `+"`json:\"branches\"`"+`
	// Main is the branch shown first, if any.
	Main *Branch%[1]d `+"`json:\"main,omitempty\"`"+`
	// Labels are free key/value pairs.
	Labels map[string]string `+"`json:\"labels,omitempty\"`"+`
	// Counts are per-label tallies.
	Counts map[string]int `+"`json:\"counts,omitempty\"`"+`
	// Created is when the trunk was made.
	Created time.Time `+"`json:\"created\"`"+`
}

// Record%[1]d is a stored record of family %[1]d.
type Record%[1]d struct {
	// Trunk is the record's body.
	Trunk Trunk%[1]d `+"`json:\"trunk\"`"+`
	// Related trunks, by reference.
	Related []Trunk%[1]d `+"`json:\"related,omitempty\" jsonschema:\"maxItems=20\"`"+`
	// Tags file the record.
	Tags []string `+"`json:\"tags,omitempty\" jsonschema:\"uniqueItems=true\"`"+`
	// Priority of the record.
	Priority Level%[1]d `+"`json:\"priority\"`"+`
	// Revision counts the changes to the record.
	Revision int64 `+"`json:\"revision\" jsonschema:\"minimum=0\"`"+`
}
`, f)
	}
	return b.String()
}
