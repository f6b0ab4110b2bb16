package generator_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rpcgen/rpcgen/generator"
)

// Generate returns the files for a package and writes nothing: here, a
// one-method interface in a module of its own, asked for the Go file and an
// OpenRPC document. A caller decides what to do with the files; the rpcgen
// command writes them, or with --check compares them with what is on disk.
func ExampleGenerate() {
	dir, err := os.MkdirTemp("", "rpcgen-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	write := func(name, src string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			log.Fatal(err)
		}
	}
	write("go.mod", "module example.com/greet\n\ngo 1.26.0\n")
	write("greeter.go", `package greet

import "context"

// Greeter says hello.
type Greeter interface {
	// Hello greets name.
	Hello(ctx context.Context, name string) (string, error)
}
`)

	files, err := generator.Generate(generator.Config{
		Dir:        dir,
		Interfaces: []string{"Greeter"},
		OpenRPC:    "greeter.openrpc.json",
	})
	if err != nil {
		log.Fatal(err)
	}
	var names []string
	for path := range files {
		names = append(names, filepath.Base(path))
	}
	slices.Sort(names)
	fmt.Println(strings.Join(names, " "))
	for line := range strings.Lines(string(files[filepath.Join(dir, "greeter_rpcgen.go")])) {
		if strings.HasPrefix(line, "func (c *GreeterClient)") || strings.Contains(line, "Method = ") {
			fmt.Print(strings.TrimSpace(line), "\n")
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "greeter_rpcgen.go")); os.IsNotExist(err) {
		fmt.Println("nothing written")
	}
	// Output:
	// greeter.openrpc.json greeter_rpcgen.go
	// GreeterHelloMethod = "greeter.hello"
	// func (c *GreeterClient) Hello(ctx context.Context, name string) (string, error) {
	// nothing written
}
