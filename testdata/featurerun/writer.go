// Package writer is the input of generator.TestFeaturesRun: prompts,
// resources and completions whose generated code features_test.go runs.
package writer

import (
	"context"
	"fmt"
	"strings"
)

// Tone is how a text sounds.
type Tone string

// The tones.
const (
	Formal Tone = "formal"
	Casual Tone = "casual"
)

// Page is one page of a book.
type Page struct {
	Book   string `json:"book"`
	Number int    `json:"number"`
}

// Writer writes.
type Writer interface {
	// Greet writes a greeting.
	//
	// name: who to greet.
	// tone: how it sounds.
	//
	//rpcgen:prompt name=greet
	Greet(ctx context.Context, name string, tone *Tone) (string, error)

	// Review asks for a review in a tone.
	//
	//rpcgen:prompt name=review
	Review(ctx context.Context, draft string, tone Tone) (string, error)

	// Page is one page of a book.
	//
	//rpcgen:resource uri=books://{book}/pages/{number}
	Page(ctx context.Context, book string, number int) (Page, error)

	// CompleteBook completes book names.
	//
	//rpcgen:complete resource=books://{book}/pages/{number} arg=book
	CompleteBook(ctx context.Context, value string) ([]string, error)
}

// impl is the implementation the test serves.
type impl struct{}

func (impl) Greet(_ context.Context, name string, tone *Tone) (string, error) {
	if tone == nil {
		return "Hello " + name, nil
	}
	return fmt.Sprintf("Hello %s (%s)", name, *tone), nil
}

func (impl) Review(_ context.Context, draft string, tone Tone) (string, error) {
	return fmt.Sprintf("Review %q in a %s tone", draft, tone), nil
}

func (impl) Page(_ context.Context, book string, number int) (Page, error) {
	return Page{Book: book, Number: number}, nil
}

func (impl) CompleteBook(_ context.Context, value string) ([]string, error) {
	var out []string
	for _, b := range []string{"dune", "dracula", "emma"} {
		if strings.HasPrefix(b, value) {
			out = append(out, b)
		}
	}
	return out, nil
}
