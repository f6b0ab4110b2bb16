package emit

import (
	"path/filepath"
	"regexp"
	"testing"

	"github.com/rpcgen/rpcgen/generator/internal/diag"
	"github.com/rpcgen/rpcgen/generator/internal/goldentest"
	"github.com/rpcgen/rpcgen/generator/internal/load"
	"github.com/rpcgen/rpcgen/generator/internal/model"
	"github.com/rpcgen/rpcgen/generator/internal/schema"
)

// TestEncodeFallbackDeferred: a method whose result's encoder can fail on
// what encoding/json refuses (a float, a time, a json.Number, raw JSON, a
// value left to encoding/json) defers the fallback to rpcimpl, over
// JSON-RPC (serve<Method>) and as an MCP tool (append<Method>); one whose
// encoder writes only strings, integers, booleans and bytes, however deep,
// has none.
func TestEncodeFallbackDeferred(t *testing.T) {
	dir := t.TempDir()
	repo, _ := goldentest.RepoRoot()
	goldentest.WriteModule(t, dir, repo)
	goldentest.MustWrite(t, filepath.Join(dir, "p.go"), []byte(`package p

import (
	"context"
	"encoding/json"
	"time"
)

// S serves.
type S interface {
	// Plain returns plain values.
	Plain(ctx context.Context) (Plain, error)
	// Float returns a float deep inside.
	Float(ctx context.Context) (Float, error)
	// Own returns a type that marshals itself.
	Own(ctx context.Context) (Own, error)
	// Stamp returns a time.
	Stamp(ctx context.Context) (time.Time, error)
	// Num returns a number.
	Num(ctx context.Context) (map[string]json.Number, error)
	// Raw returns raw JSON.
	Raw(ctx context.Context) ([]json.RawMessage, error)
	// Count returns an integer.
	Count(ctx context.Context) (int64, error)
	// Total returns a float.
	Total(ctx context.Context) (*float32, error)
}

// Plain holds what never fails to encode.
type Plain struct {
	Name  string            `+"`json:\"name\"`"+`
	N     int               `+"`json:\"n,string\"`"+`
	Tags  []string          `+"`json:\"tags,omitempty\"`"+`
	Data  []byte            `+"`json:\"data\"`"+`
	Grid  [2][]uint8        `+"`json:\"grid\"`"+`
	Inner *Inner            `+"`json:\"inner\"`"+`
	M     map[string]Inner  `+"`json:\"m\"`"+`
}

// Inner is nested.
type Inner struct {
	OK bool `+"`json:\"ok\"`"+`
}

// Float holds a float three levels down.
type Float struct {
	Rows []map[string]*Point `+"`json:\"rows\"`"+`
}

// Point is a point.
type Point struct {
	Name string  `+"`json:\"name\"`"+`
	X    float64 `+"`json:\"x\"`"+`
}

// Own holds a type that marshals itself.
type Own struct {
	Mode Mode `+"`json:\"mode\"`"+`
}

// Mode is a mode, as text.
type Mode int

// MarshalText writes the mode.
func (m Mode) MarshalText() ([]byte, error) { return []byte("m"), nil }

// UnmarshalText reads the mode.
func (m *Mode) UnmarshalText([]byte) error { return nil }
`))
	pkg, typeErrs, err := load.Load(dir, filepath.Join(dir, "p_rpcgen.go"), nil)
	if err != nil {
		t.Fatal(err)
	}
	services, err := model.Build(pkg, []string{"S"}, typeErrs)
	if err != nil {
		t.Fatal(err)
	}
	errs := &diag.Collector{Fset: pkg.Fset}
	src, _, err := GoFile(pkg.PkgPath, pkg.Name, services, schema.NewBuilder(pkg, errs), nil, nil)
	if err == nil {
		err = errs.Err()
	}
	if err != nil {
		t.Fatal(err)
	}
	body := func(fn string) string {
		m := regexp.MustCompile(`(?ms)^func \(h sHandler\) ` + fn + `\(.*?^}$`).Find(src)
		if m == nil {
			t.Fatalf("no %s in\n%s", fn, src)
		}
		return string(m)
	}
	deferred := regexp.MustCompile(`(?m)^\tdefer func\(\) \{\n\t\tif rpcimpl\.EncodeFailed\(recover\(\)\) \{\n\t\t\tres, err = rpcimpl\.(Append)?Result\(`)
	for fn, want := range map[string]bool{
		// Tools of an object result (servePlain calls appendPlain with no
		// buffer), and methods of a result that is not an object.
		"appendPlain": false, "serveCount": false,
		"appendFloat": true, "appendOwn": true, "appendNum": true, "serveStamp": true, "serveRaw": true, "serveTotal": true,
	} {
		b := body(fn)
		if got := deferred.MatchString(b); got != want {
			t.Errorf("%s defers the fallback: %v, want %v:\n%s", fn, got, want, b)
		}
		if named := regexp.MustCompile(`\(res json\.RawMessage, err error\) \{`).MatchString(b); named != want {
			t.Errorf("%s has named results: %v, want %v:\n%s", fn, named, want, b)
		}
	}
}
