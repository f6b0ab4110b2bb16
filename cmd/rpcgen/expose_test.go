package main

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
)

// The module of TestExposeOverMCP: a service package of the module
// (tasks), an interface of a dependency module (example.com/todo, replaced
// by a directory), a package that generates for both with overrides of
// its own (expose), a stdio server, and a test that calls it through the
// generated typed MCP clients.
var exposeFiles = map[string]string{
	"todo/go.mod": "module example.com/todo\n\ngo 1.26.0\n",
	"todo/todo.go": `// Package todo is a dependency whose source the user cannot edit.
package todo

import "context"

// TodoService keeps a list of things to do.
//
//rpcgen:service name=todo
type TodoService interface {
	// Add adds an item and returns it.
	//
	// title: what there is to do, in a few words.
	Add(ctx context.Context, title string) (*Item, error)

	// List returns the items, open ones first.
	//
	//rpcgen:tool readonly
	List(ctx context.Context) ([]Item, error)

	// Purge removes every item.
	//
	//rpcgen:tool skip
	Purge(ctx context.Context) error
}

// Item is one thing to do.
type Item struct {
	// ID identifies the item.
	ID    string ` + "`json:\"id\"`" + `
	Title string ` + "`json:\"title\"`" + `
}
`,
	"app/tasks/tasks.go": `// Package tasks is a service package of the application's module.
package tasks

import "context"

// Tasks hands out work.
type Tasks interface {
	// Assign gives a task to someone.
	//
	// task: the task's id.
	// who: the person's login.
	//
	//rpcgen:tool idempotent
	Assign(ctx context.Context, task, who string) error

	// Finish marks a task as done.
	Finish(ctx context.Context, task string) error
}
`,
	"app/expose/expose.go": `// Package expose serves the application's services to agents.
package expose

import "example.com/todo"

//go:generate go tool rpcgen example.com/app/tasks.Tasks
//go:generate go tool rpcgen --strict Todo

// Todo is the todo service as agents see it.
//
//rpcgen:service toolprefix=todo_
//rpcgen:tool Purge skip=false destructive title="Delete every todo"
//rpcgen:tool List name=list_todos openworld=false
type Todo interface {
	todo.TodoService
}
`,
	"app/expose/impl.go": `package expose

import (
	"context"
	"fmt"

	"example.com/todo"
	"github.com/rpcgen/rpcgen/runtime"
)

// Impl serves both services.
type Impl struct{ items []todo.Item }

func (s *Impl) Add(_ context.Context, title string) (*todo.Item, error) {
	it := todo.Item{ID: fmt.Sprint(len(s.items) + 1), Title: title}
	s.items = append(s.items, it)
	return &it, nil
}

func (s *Impl) List(context.Context) ([]todo.Item, error) { return s.items, nil }

func (s *Impl) Purge(context.Context) error { s.items = nil; return nil }

func (s *Impl) Assign(context.Context, string, string) error { return nil }

func (s *Impl) Finish(_ context.Context, task string) error {
	return runtime.NewError(4004, "no task "+task).WithData(map[string]string{"task": task})
}
`,
	"app/cmd/server/main.go": `package main

import (
	"context"
	"log"

	"example.com/app/expose"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
)

func main() {
	srv := mcpserver.New(mcp.Implementation{Name: "app", Version: "1.0.0"}, nil)
	impl := &expose.Impl{}
	srv.AddTools(expose.TasksTools(impl)...)
	srv.AddTools(expose.TodoTools(impl)...)
	if err := srv.ServeStdio(context.Background()); err != nil {
		log.Fatal(err)
	}
}
`,
	"app/expose/client_test.go": `package expose

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"testing"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
)

// TestTypedClients calls the server named by $SERVER over MCP stdio through
// the generated typed MCP clients.
func TestTypedClients(t *testing.T) {
	ctx := context.Background()
	c, err := mcpclient.DialCommand(ctx, exec.Command(os.Getenv("SERVER")), mcpclient.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	todos := NewTodoMCPClient(c)
	item, err := todos.Add(ctx, "write docs")
	if err != nil || item.Title != "write docs" {
		t.Fatalf("Add = %+v, %v", item, err)
	}
	list, err := todos.List(ctx)
	if err != nil || len(list) != 1 || list[0].ID != item.ID {
		t.Fatalf("List = %+v, %v", list, err)
	}
	if err := todos.Purge(ctx); err != nil {
		t.Fatalf("Purge (skipped by the source, exposed by the override): %v", err)
	}
	tasks := NewTasksMCPClient(c)
	if err := tasks.Assign(ctx, "t1", "ada"); err != nil {
		t.Fatalf("Assign: %v", err)
	}
	err = tasks.Finish(ctx, "t9")
	re, ok := err.(*runtime.Error)
	if !ok || re.Code != 4004 || re.Message != "no task t9" || string(re.Data) != ` + "`" + `{"task":"t9"}` + "`" + ` {
		t.Fatalf("Finish = %#v; want the *runtime.Error 4004 with its data", err)
	}
	var viaAs *runtime.Error
	if !errors.As(err, &viaAs) {
		t.Fatal("errors.As finds no *runtime.Error")
	}
}
`,
}

// TestExposeOverMCP is issue 17's acceptance test. In a new module it
// generates for an interface of another package of the module and for one
// of a dependency module (with local overrides), with rpcgen installed as
// the docs say for a checkout; builds the server; serves it over MCP stdio;
// and checks through tools/list that the descriptions come from the
// foreign doc comments and the names and hints from the directives and
// overrides, and through the generated typed MCP clients (a test in the
// module) that a *runtime.Error arrives with its code and data.
func TestExposeOverMCP(t *testing.T) {
	if testing.Short() {
		t.Skip("builds rpcgen and a server in a new module")
	}
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	g := newOfflineGo(t, http.StatusForbidden)
	root := t.TempDir()
	for name, src := range exposeFiles {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		write(t, filepath.Join(root, name), src)
	}
	app := filepath.Join(root, "app")
	g.run(t, app, nil, "go", "mod", "init", "example.com/app")
	g.run(t, app, nil, "go", "mod", "edit", "-replace", "example.com/todo=../todo", "-require", "example.com/todo@v0.0.0")
	installFromCheckout(t, g, app, repo) // go generate ./... included
	for _, f := range []string{"tasks_rpcgen.go", "todo_rpcgen.go"} {
		if _, err := os.Stat(filepath.Join(app, "expose", f)); err != nil {
			t.Fatalf("go generate did not write expose/%s: %v", f, err)
		}
	}
	server := filepath.Join(root, "server")
	g.run(t, app, nil, "go", "build", "-o", server, "./cmd/server")

	ctx := context.Background()
	c, err := mcpclient.DialCommand(ctx, exec.Command(server), mcpclient.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	tools, err := c.ListTools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]mcp.ToolInfo{}
	for _, tool := range tools {
		byName[tool.Name] = tool
	}
	hint := func(b *bool) string {
		if b == nil {
			return "-"
		}
		return map[bool]string{true: "true", false: "false"}[*b]
	}
	want := []struct {
		name, title, description                     string
		readOnly, destructive, idempotent, openWorld string
		inputMentions                                string
	}{
		{"assign", "Assign", "Assign gives a task to someone.", "-", "-", "true", "-", `"description":"the person's login."`},
		{"finish", "Finish", "Finish marks a task as done.", "-", "-", "-", "-", `"task"`},
		{"todo_add", "Add", "Add adds an item and returns it.", "-", "-", "-", "-", `"description":"what there is to do, in a few words."`},
		{"list_todos", "List", "List returns the items, open ones first.", "true", "-", "-", "false", ""},
		{"todo_purge", "Delete every todo", "Purge removes every item.", "-", "true", "-", "-", ""},
	}
	if len(tools) != len(want) {
		t.Errorf("tools/list has %d tools, want %d: %+v", len(tools), len(want), tools)
	}
	for _, w := range want {
		got, ok := byName[w.name]
		if !ok {
			t.Errorf("no tool %s in tools/list", w.name)
			continue
		}
		var a mcp.ToolAnnotations
		if got.Annotations != nil {
			a = *got.Annotations
		}
		gotHints := [4]string{hint(a.ReadOnlyHint), hint(a.DestructiveHint), hint(a.IdempotentHint), hint(a.OpenWorldHint)}
		wantHints := [4]string{w.readOnly, w.destructive, w.idempotent, w.openWorld}
		if got.Title != w.title || got.Description != w.description || gotHints != wantHints {
			t.Errorf("tool %s: title %q, description %q, hints (readOnly, destructive, idempotent, openWorld) %v; want %q, %q, %v",
				w.name, got.Title, got.Description, gotHints, w.title, w.description, wantHints)
		}
		if !strings.Contains(string(got.InputSchema), w.inputMentions) {
			t.Errorf("tool %s: input schema %s lacks %s", w.name, got.InputSchema, w.inputMentions)
		}
	}

	// The error's code and data as the wire carries them, next to the text.
	res, err := c.CallToolRaw(ctx, mcp.CallToolParams{Name: "finish", Arguments: map[string]string{"task": "t2"}})
	if err != nil {
		t.Fatal(err)
	}
	var meta map[string]json.RawMessage
	_ = json.Unmarshal(res.Meta, &meta)
	if !res.IsError || len(res.Content) != 1 || res.Content[0].Text != "no task t2" ||
		string(meta[mcp.MetaError]) != `{"code":4004,"message":"no task t2","data":{"task":"t2"}}` {
		t.Errorf("finish: %+v (meta %s)", res, res.Meta)
	}

	// The typed MCP clients, in the module.
	out := g.run(t, app, []string{"SERVER=" + server}, "go", "test", "-count=1", "-v", "-run", "TestTypedClients", "./expose")
	if !strings.Contains(out, "--- PASS: TestTypedClients") {
		t.Errorf("the typed clients' test did not pass:\n%s", out)
	}
}
