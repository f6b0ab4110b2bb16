package mcp_test

import (
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/rpcgen/rpcgen/runtime/mcp"
)

// clientRequests returns the rows of the requests a client sends.
func clientRequests() []*mcp.Method {
	var rows []*mcp.Method
	for _, m := range mcp.Methods() {
		if m.Direction&mcp.ClientToServer != 0 && !m.Notification && m.Extension == "" {
			rows = append(rows, m)
		}
	}
	return rows
}

// TestTableInline checks the rows a stream transport answers on its reader
// goroutine: no handler of the user's runs for them.
func TestTableInline(t *testing.T) {
	var inline []string
	for _, m := range mcp.Methods() {
		if m.Inline {
			inline = append(inline, m.Name)
		}
	}
	want := []string{mcp.MethodInitialize, mcp.MethodPing, mcp.MethodServerDiscover, mcp.MethodToolsList,
		mcp.MethodResourcesList, mcp.MethodResourcesTemplatesList, mcp.MethodPromptsList, mcp.MethodLoggingSetLevel}
	slices.Sort(inline)
	slices.Sort(want)
	if !slices.Equal(inline, want) {
		t.Errorf("inline rows %v, want %v", inline, want)
	}
}

// registered counts the methods this test binary registered, so each run
// (go test -count) registers names of its own.
var registered atomic.Int64

// TestRegisterMethod adds an extension's method: it is found like the
// protocol's, after them, and a malformed or duplicate row panics.
func TestRegisterMethod(t *testing.T) {
	name := fmt.Sprintf("x-rpcgen-test/echo%d", registered.Add(1))
	row := mcp.RegisterMethod(mcp.Method{Name: name, Since: mcp.Version20260728, Direction: mcp.ClientToServer,
		Extension: "io.github.rpcgen/test", Retry: mcp.RetrySafe})
	if got := mcp.LookupMethod(name); got != row {
		t.Fatalf("LookupMethod(%q) = %v, want the registered row", name, got)
	}
	if row.In(mcp.Version20251125) || !row.In(mcp.Version20260728) {
		t.Errorf("%s: In says 2025-11-25 %v, 2026-07-28 %v; want false, true", name, row.In(mcp.Version20251125), row.In(mcp.Version20260728))
	}
	if got := row.HeaderValue(); !slices.Equal(got, []string{name}) {
		t.Errorf("HeaderValue = %v", got)
	}
	rows := mcp.Methods()
	if rows[0].Name != mcp.MethodInitialize || rows[len(rows)-1] != row {
		t.Errorf("Methods: first %s, last %s; want initialize first and the registered row last", rows[0].Name, rows[len(rows)-1].Name)
	}
	again := mcp.RegisterMethod(mcp.Method{Name: name, Since: mcp.Version20260728, Direction: mcp.ClientToServer,
		Extension: "io.github.rpcgen/test", Retry: mcp.RetrySafe})
	if again != row {
		t.Errorf("registering the same row again returned another row")
	}
	const ext = "io.github.rpcgen/test"
	for _, bad := range []mcp.Method{
		{Name: name, Direction: mcp.ClientToServer},
		{Name: name, Direction: mcp.ClientToServer, Extension: ext},
		{Name: mcp.MethodToolsCall, Direction: mcp.ClientToServer, Extension: ext},
		{Name: "notifications/roots/list_changed", Direction: mcp.ClientToServer, Notification: true, Extension: ext},
		{Direction: mcp.ClientToServer, Extension: ext},
		{Name: name + "/nodir", Extension: ext},
		{Name: name + "/order", Direction: mcp.BothWays, Since: mcp.Version20260728, Until: mcp.Version20251125, Extension: ext},
		{Name: name + "/noext", Direction: mcp.ClientToServer},
		{Name: name + "/badext", Direction: mcp.ClientToServer, Extension: "test"},
		{Name: "rpc.discover", Direction: mcp.ClientToServer, Extension: ext},
		{Name: name + "/note", Direction: mcp.ServerToClient, Notification: true, Extension: ext},
		{Name: "notifications/" + name, Direction: mcp.ServerToClient, Extension: ext},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("RegisterMethod(%+v) did not panic", bad)
				}
			}()
			mcp.RegisterMethod(bad)
		}()
	}
}

// TestTableMatchesSpec holds the table against the specification's own
// list of methods by revision (the ClientRequest, ServerRequest,
// ClientNotification and ServerNotification unions of each schema.ts).
func TestTableMatchesSpec(t *testing.T) {
	legacy := mcp.LegacyVersions
	all := append(slices.Clone(mcp.LegacyVersions), mcp.ModernVersions...)
	modern := mcp.ModernVersions
	from0618 := []string{mcp.Version20250618, mcp.Version20251125, mcp.Version20260728}
	spec := []struct {
		name string
		dir  mcp.Direction
		in   []string
	}{
		{"initialize", mcp.ClientToServer, legacy},
		{"ping", mcp.BothWays, legacy},
		{"server/discover", mcp.ClientToServer, modern},
		{"tools/list", mcp.ClientToServer, all},
		{"tools/call", mcp.ClientToServer, all},
		{"resources/list", mcp.ClientToServer, all},
		{"resources/read", mcp.ClientToServer, all},
		{"resources/templates/list", mcp.ClientToServer, all},
		{"resources/subscribe", mcp.ClientToServer, legacy},
		{"resources/unsubscribe", mcp.ClientToServer, legacy},
		{"subscriptions/listen", mcp.ClientToServer, modern},
		{"prompts/list", mcp.ClientToServer, all},
		{"prompts/get", mcp.ClientToServer, all},
		{"completion/complete", mcp.ClientToServer, all},
		{"logging/setLevel", mcp.ClientToServer, legacy},
		{"sampling/createMessage", mcp.ServerToClient, all}, // 2026-07-28: inside inputRequests
		{"roots/list", mcp.ServerToClient, all},
		{"elicitation/create", mcp.ServerToClient, from0618},
		{"notifications/initialized", mcp.ClientToServer, legacy},
		{"notifications/cancelled", mcp.BothWays, all},
		{"notifications/progress", mcp.BothWays, all},
		{"notifications/message", mcp.ServerToClient, all},
		{"notifications/resources/updated", mcp.ServerToClient, all},
		{"notifications/resources/list_changed", mcp.ServerToClient, all},
		{"notifications/tools/list_changed", mcp.ServerToClient, all},
		{"notifications/prompts/list_changed", mcp.ServerToClient, all},
		{"notifications/subscriptions/acknowledged", mcp.ServerToClient, modern},
	}
	for _, s := range spec {
		m := mcp.LookupMethod(s.name)
		if m == nil {
			t.Errorf("the table has no %s", s.name)
			continue
		}
		if m.Direction != s.dir {
			t.Errorf("%s: direction %d, want %d", s.name, m.Direction, s.dir)
		}
		if m.Notification != strings.HasPrefix(s.name, "notifications/") {
			t.Errorf("%s: Notification %v", s.name, m.Notification)
		}
		for _, rev := range all {
			if got, want := m.In(rev), slices.Contains(s.in, rev); got != want {
				t.Errorf("%s in %s: %v, want %v", s.name, rev, got, want)
			}
		}
	}
	core := 0
	for _, m := range mcp.Methods() {
		if m.Extension == "" && !strings.HasPrefix(m.Name, "x-rpcgen-test/") {
			core++
		}
	}
	if core != len(spec) {
		t.Errorf("the table has %d methods of the protocol, the test knows %d", core, len(spec))
	}
}

// TestTableRetrySafety holds the table's retry safety against what running
// each request twice does: lists, reads and gets only read; subscribe and
// setLevel set what they set; a tool is as safe as its hints.
func TestTableRetrySafety(t *testing.T) {
	want := map[string]mcp.RetrySafety{
		"ping": mcp.RetrySafe, "server/discover": mcp.RetrySafe, "logging/setLevel": mcp.RetrySafe,
		"tools/list": mcp.RetrySafe, "resources/list": mcp.RetrySafe, "resources/templates/list": mcp.RetrySafe,
		"prompts/list": mcp.RetrySafe, "resources/read": mcp.RetrySafe, "prompts/get": mcp.RetrySafe,
		"completion/complete": mcp.RetrySafe, "resources/subscribe": mcp.RetrySafe, "resources/unsubscribe": mcp.RetrySafe,
		"tools/call": mcp.RetrySafeIfTool,
	}
	for _, m := range clientRequests() {
		if got := m.Retry; got != want[m.Name] {
			t.Errorf("%s: retry safety %d, want %d", m.Name, got, want[m.Name])
		}
	}
}
