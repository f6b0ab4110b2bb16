// Package streamclose is how a transport hands mcpserver.CloseStream the
// means to end the connection carrying the current request's stream: the
// request's context answers Key with a Closer. mcpserver.WithStreamCloser
// adds such a value; a transport's own context type may answer it itself,
// without a context more per request.
package streamclose

// Key is the context key of the current request's Closer.
type Key struct{}

// Closer ends the connection carrying the current request's stream while
// the request goes on, and reports whether it did.
type Closer interface {
	CloseStream() bool
}
