package mcpbench

import (
	"context"
	"fmt"
	"strings"
)

// The eras a workload runs in, and the protocol revision each one pins.
const (
	EraLegacy = "legacy" // 2025-11-25: initialize, then calls within the session
	EraModern = "modern" // 2026-07-28: stateless, _meta on every request
)

// Versions maps an era to the protocol revision its clients ask for.
var Versions = map[string]string{
	EraLegacy: "2025-11-25",
	EraModern: "2026-07-28",
}

// The transports a workload runs over.
const (
	InProcess = "inprocess" // each SDK's in-memory transport
	Pipes     = "pipes"     // a pair of os.Pipe in one process, newline framing
	Stdio     = "stdio"     // a server subprocess on stdin and stdout
)

// Tools are the tools every peer serves: add ({"a","b"} → {"sum"}) and echo
// ({"text"} → {"text"}).
var Tools = []string{"add", "echo"}

// EchoText is the 1 KiB string the echo workload sends: ASCII prose, so
// neither side pays for escapes beyond the text copy of the result.
var EchoText = func() string {
	const words = "the quick brown fox jumps over a lazy dog while seven wizards quietly box jumping frogs "
	var b strings.Builder
	for b.Len() < 1024 {
		b.WriteString(words)
	}
	return b.String()[:1024]
}()

// Caller is one client connection to one peer's server, in one era. Its
// methods are safe for concurrent use; each call returns what the server
// answered, decoded by the peer's own client.
type Caller interface {
	Add(ctx context.Context, a, b int) (int, error)
	Echo(ctx context.Context, text string) (string, error)
	Close() error
}

// Call makes call number i of tool through c and checks the answer, so no
// peer can do less than the workload asks: add must return i+1000, echo the
// text it was sent.
func Call(ctx context.Context, c Caller, tool string, i int) error {
	switch tool {
	case "add":
		sum, err := c.Add(ctx, i, 1000)
		if err != nil {
			return fmt.Errorf("add(%d, 1000): %w", i, err)
		}
		if sum != i+1000 {
			return fmt.Errorf("add(%d, 1000) = %d", i, sum)
		}
	case "echo":
		text, err := c.Echo(ctx, EchoText)
		if err != nil {
			return fmt.Errorf("echo: %w", err)
		}
		if text != EchoText {
			return fmt.Errorf("echo returned %d bytes that differ from the %d sent", len(text), len(EchoText))
		}
	default:
		return fmt.Errorf("unknown tool %q", tool)
	}
	return nil
}

// AddArgs and EchoArgs are the tools' arguments; Sum and Echoed (in package
// service) their structured results. The peers that derive schemas from Go
// types derive them from these.
type AddArgs struct {
	A int `json:"a" jsonschema:"the first addend"`
	B int `json:"b" jsonschema:"the second addend"`
}

// EchoArgs is the argument object of echo.
type EchoArgs struct {
	Text string `json:"text" jsonschema:"the text to return"`
}
