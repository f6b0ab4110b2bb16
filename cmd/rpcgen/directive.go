package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/rpcgen/rpcgen/internal/cmdline"
)

// A generateLine is a //go:generate line that runs rpcgen.
type generateLine struct {
	file string   // the Go file holding it
	line int      // its line number, from 1
	text string   // what follows //go:generate, as written
	args []string // rpcgen's arguments, as go generate would pass them
}

// A directiveEnv is what go generate sets for a directive and expands in
// its words: $GOFILE, $GOLINE, $GOPACKAGE, $GOOS, $GOARCH, $GOROOT and
// $DOLLAR, and otherwise the environment.
type directiveEnv struct {
	goos, goarch, goroot string
	pkg                  string // the package name of the file
}

// generateLines returns the //go:generate lines of the file src (at path)
// that run rpcgen, however they spell it, following go generate's reading
// of a line: a line that starts with "//go:generate" and a space or a tab,
// words split at spaces and tabs, double-quoted words read as Go strings,
// aliases from "//go:generate -command" for the rest of the file, then
// $NAME expanded. A line go generate would refuse is an error at its
// position.
func generateLines(path string, src []byte, env directiveEnv) ([]generateLine, error) {
	var found []generateLine
	aliases := map[string][]string{}
	for n := 1; len(src) > 0; n++ {
		raw, rest, complete := bytes.Cut(src, []byte("\n"))
		src = rest
		if !bytes.HasPrefix(raw, []byte("//go:generate ")) && !bytes.HasPrefix(raw, []byte("//go:generate\t")) {
			continue
		}
		if !complete {
			return found, fmt.Errorf("%s:%d: //go:generate line at the end of the file has no newline", path, n)
		}
		text := strings.TrimSuffix(string(raw[len("//go:generate "):]), "\r")
		words, err := cmdline.SplitWords(text)
		if err != nil {
			return found, fmt.Errorf("%s:%d: %v", path, n, err)
		}
		if len(words) == 0 {
			return found, fmt.Errorf("%s:%d: no arguments to //go:generate", path, n)
		}
		if alias, ok := aliases[words[0]]; ok {
			words = append(append([]string(nil), alias...), words[1:]...)
		}
		for i, w := range words {
			words[i] = os.Expand(w, env.lookup(filepath.Base(path), n))
		}
		if words[0] == "-command" {
			if len(words) < 3 {
				return found, fmt.Errorf("%s:%d: -command needs a name and a command", path, n)
			}
			aliases[words[1]] = words[2:]
			continue
		}
		if args, ok := rpcgenArgs(words); ok {
			found = append(found, generateLine{file: path, line: n, text: strings.TrimSpace(text), args: args})
		}
	}
	return found, nil
}

// lookup is the $NAME expansion of a directive on line n of file.
func (e directiveEnv) lookup(file string, n int) func(string) string {
	return func(name string) string {
		switch name {
		case "GOFILE":
			return file
		case "GOLINE":
			return strconv.Itoa(n)
		case "GOPACKAGE":
			return e.pkg
		case "GOOS":
			return e.goos
		case "GOARCH":
			return e.goarch
		case "GOROOT":
			return e.goroot
		case "DOLLAR":
			return "$"
		}
		return os.Getenv(name)
	}
}

// rpcgenArgs reports whether the command words run rpcgen, and with what
// arguments: "go tool rpcgen ARGS" (or the tool's package path), "go run
// PKG ARGS" where PKG is rpcgen's command package (a path ending in
// /cmd/rpcgen, with or without @version), or a program named rpcgen.
func rpcgenArgs(words []string) ([]string, bool) {
	if isRPCGen(words[0]) {
		return words[1:], true
	}
	if filepath.Base(words[0]) != "go" || len(words) < 3 {
		return nil, false
	}
	switch words[1] {
	case "tool":
		i := skipGoFlags(words, 2)
		if i < len(words) && (words[i] == "rpcgen" || isRPCGenPackage(words[i])) {
			return words[i+1:], true
		}
	case "run":
		i := skipGoFlags(words, 2)
		if i < len(words) && isRPCGenPackage(words[i]) {
			return words[i+1:], true
		}
	}
	return nil, false
}

// isRPCGen reports whether a command is a program named rpcgen.
func isRPCGen(cmd string) bool {
	base := filepath.Base(cmd)
	return base == "rpcgen" || base == "rpcgen.exe"
}

// isRPCGenPackage reports whether a go run or go tool argument names
// rpcgen's command package: github.com/rpcgen/rpcgen/cmd/rpcgen, a fork's
// .../cmd/rpcgen, or a directory such as ../../cmd/rpcgen, each maybe with
// @version.
func isRPCGenPackage(arg string) bool {
	arg, _, _ = strings.Cut(arg, "@")
	arg = strings.TrimSuffix(filepath.ToSlash(arg), "/")
	return arg == "cmd/rpcgen" || strings.HasSuffix(arg, "/cmd/rpcgen")
}

// goValueFlags are the go command's build flags that take a value, which
// may be the next word.
var goValueFlags = map[string]bool{
	"C": true, "asmflags": true, "buildmode": true, "compiler": true, "covermode": true, "coverpkg": true,
	"exec": true, "gccgoflags": true, "gcflags": true, "installsuffix": true, "ldflags": true, "mod": true,
	"modfile": true, "overlay": true, "p": true, "pgo": true, "pkgdir": true, "tags": true, "toolexec": true,
}

// skipGoFlags returns the index of the first word at or after i that is
// not a go command flag (or the value of one).
func skipGoFlags(words []string, i int) int {
	for i < len(words) && strings.HasPrefix(words[i], "-") {
		name := strings.TrimLeft(words[i], "-")
		i++
		if !strings.Contains(name, "=") && goValueFlags[name] {
			i++
		}
	}
	return i
}
