// Package greeter is a small service with rpcgen-generated code, served and
// called by the Example functions of the runtime packages: one tool, one
// resource and one prompt, so that its generated RegisterGreeter adds
// something of each kind.
package greeter

import (
	"context"
	"errors"
)

//go:generate go tool rpcgen Greeter

// Greeter greets people.
type Greeter interface {
	// Greet returns a greeting for name.
	//
	// name: who to greet.
	//
	//rpcgen:tool readonly title="Greet someone"
	Greet(ctx context.Context, name string) (Greeting, error)

	// Motto is the greeter's motto.
	//
	//rpcgen:resource uri=greeter://motto
	Motto(ctx context.Context) (string, error)

	// Welcome asks the model to welcome a newcomer.
	//
	// name: the newcomer's name.
	//
	//rpcgen:prompt
	Welcome(ctx context.Context, name string) (string, error)
}

// Greeting is what Greet returns.
type Greeting struct {
	// Text is the greeting.
	Text string `json:"text"`
}

// Impl is a Greeter.
type Impl struct{}

// Greet returns "Hello, <name>!", and an error for an empty name.
func (Impl) Greet(ctx context.Context, name string) (Greeting, error) {
	if name == "" {
		return Greeting{}, errors.New("greet whom? the name is empty")
	}
	return Greeting{Text: "Hello, " + name + "!"}, nil
}

// Motto returns the motto.
func (Impl) Motto(ctx context.Context) (string, error) { return "Be kind.", nil }

// Welcome returns the prompt's text.
func (Impl) Welcome(ctx context.Context, name string) (string, error) {
	return "Write two friendly sentences welcoming " + name + " to the team.", nil
}
