package main

import (
	"reflect"
	"strings"
	"testing"
)

// TestGenerateLines: the //go:generate lines that run rpcgen, however they
// spell it, with the arguments go generate would pass; other generators
// and lines go generate does not read are left alone.
func TestGenerateLines(t *testing.T) {
	env := directiveEnv{goos: "linux", goarch: "amd64", goroot: "/goroot", pkg: "calc"}
	t.Setenv("RPCGEN_TEST_API", "2.0.0")
	tests := []struct {
		name string
		src  string
		want [][]string // the args of each line found, in order
	}{
		{"go tool", "//go:generate go tool rpcgen Calculator\n", [][]string{{"Calculator"}}},
		{"go tool with flags before and after the tool", "//go:generate go tool -modfile=tools.mod rpcgen --ts c.ts --api-version 1.0.0 Calculator\n",
			[][]string{{"--ts", "c.ts", "--api-version", "1.0.0", "Calculator"}}},
		{"go tool by package path", "//go:generate go tool github.com/rpcgen/rpcgen/cmd/rpcgen Calculator\n", [][]string{{"Calculator"}}},
		{"go run of the module's command", "//go:generate go run github.com/rpcgen/rpcgen/cmd/rpcgen Calculator\n", [][]string{{"Calculator"}}},
		{"go run at a version, with build flags", "//go:generate go run -mod=mod -tags dev github.com/rpcgen/rpcgen/cmd/rpcgen@v0.1.0 -o x.go Calculator\n",
			[][]string{{"-o", "x.go", "Calculator"}}},
		{"go run of a fork or a checkout", "//go:generate go run example.com/fork/rpcgen/cmd/rpcgen Calculator\n//go:generate go run ../../cmd/rpcgen Other\n",
			[][]string{{"Calculator"}, {"Other"}}},
		{"a program on PATH or by path", "//go:generate rpcgen Calculator\n//go:generate /usr/local/bin/rpcgen --strict Other\n",
			[][]string{{"Calculator"}, {"--strict", "Other"}}},
		{"tab after the directive, CRLF", "//go:generate\trpcgen Calculator\r\n", [][]string{{"Calculator"}}},
		{"an alias from -command, for the rest of the file", "//go:generate rpcgen A\n//go:generate -command gen go tool rpcgen --strict\n//go:generate gen B\n//go:generate gen --out c_rpcgen.go C\n",
			[][]string{{"A"}, {"--strict", "B"}, {"--strict", "--out", "c_rpcgen.go", "C"}}},
		{"quoted words and variables", `//go:generate rpcgen --contact "Ada Lovelace" --out ${GOPACKAGE}_$GOLINE.go --api-version $RPCGEN_TEST_API --license "$DOLLAR" --server "http://h/$GOOS/$GOARCH" Calculator` + "\n",
			[][]string{{"--contact", "Ada Lovelace", "--out", "calc_1.go", "--api-version", "2.0.0", "--license", "$", "--server", "http://h/linux/amd64", "Calculator"}}},
		{"$GOFILE", "\n\n//go:generate rpcgen --docs $GOFILE.md Calculator\n", [][]string{{"--docs", "calc.go.md", "Calculator"}}},
		{"other generators and non-directives", "//go:generate stringer -type Kind\n//go:generate go run golang.org/x/tools/cmd/stringer -type Kind\n" +
			"//go:generate go tool stringer -type Kind\n//go:generate go run ./cmd/rpcgenlike X\n  //go:generate rpcgen Indented\n// go:generate rpcgen Spaced\n" +
			"//go:generaterpcgen X\n/*\n//go:generate rpcgen InComment\n*/\n", [][]string{{"InComment"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lines, err := generateLines("calc.go", []byte(tt.src), env)
			if err != nil {
				t.Fatal(err)
			}
			var got [][]string
			for _, l := range lines {
				got = append(got, l.args)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("args %q, want %q", got, tt.want)
			}
		})
	}
}

// TestGenerateLinesPositions: each line knows where it is and what it
// says; a line go generate would refuse is an error at its position.
func TestGenerateLinesPositions(t *testing.T) {
	env := directiveEnv{pkg: "calc"}
	lines, err := generateLines("calc.go", []byte("package calc\n\n//go:generate go tool rpcgen  --strict Calculator \n"), env)
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != 1 || lines[0].line != 3 || lines[0].text != "go tool rpcgen  --strict Calculator" {
		t.Fatalf("lines %+v", lines)
	}
	for _, tt := range []struct{ src, want string }{
		{"package calc\n//go:generate rpcgen --contact \"Ada Calculator\n", `calc.go:2: unterminated quoted argument`},
		{"//go:generate rpcgen --contact \"Ada\"Lovelace Calculator\n", `calc.go:1: no space after quoted argument`},
		{"//go:generate rpcgen --contact \"\\q\" Calculator\n", `calc.go:1: bad quoted argument "\q"`},
		{"//go:generate -command gen\n", `calc.go:1: -command needs a name and a command`},
		{"//go:generate  \n", `calc.go:1: no arguments to //go:generate`},
		{"package calc\n\n//go:generate rpcgen Calculator", `calc.go:3: //go:generate line at the end of the file has no newline`},
	} {
		_, err := generateLines("calc.go", []byte(tt.src), env)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: error %v, want %q", tt.src, err, tt.want)
		}
	}
}
