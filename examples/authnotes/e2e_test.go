package authnotes_test

import (
	"bufio"
	"context"
	"html"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/examples/authnotes"
	"github.com/rpcgen/rpcgen/ext/oauth"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttpclient"
)

// buildCommands builds the authorization server and the notes server once.
var buildCommands = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "authnotes")
	if err != nil {
		return "", err
	}
	out, err := exec.Command("go", "build", "-o", dir+string(filepath.Separator), "./cmd/authserver", "./cmd/notes-server").CombinedOutput()
	if err != nil {
		return "", &exec.ExitError{Stderr: out}
	}
	return dir, nil
})

func TestMain(m *testing.M) {
	code := m.Run()
	if dir, err := buildCommands(); err == nil {
		os.RemoveAll(dir)
	}
	os.Exit(code)
}

// start runs a command of the example that prints its URL as its first
// line, and stops it (SIGTERM, wanting exit 0) when the test ends.
func start(t *testing.T, name string, args ...string) string {
	t.Helper()
	dir, err := buildCommands()
	if err != nil {
		t.Fatalf("build: %v", err)
	}
	cmd := exec.Command(filepath.Join(dir, name), args...)
	cmd.Stderr = os.Stderr
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		if err := cmd.Wait(); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("%s printed no URL: %v", name, err)
	}
	go io.Copy(io.Discard, stdout)
	return strings.TrimSpace(line)
}

// user plays the person at the browser: it opens the login page the
// authorization URL leads to, logs in as alice and consents to the scopes
// of the round (all those asked for when nil), and follows the redirect,
// which lands on the client's loopback listener.
type user struct {
	t      *testing.T
	rounds [][]string // the scopes consented to at each login
	logins int
	asked  [][]string // the scopes each authorization request asked for
}

var hiddenRequest = regexp.MustCompile(`name="request" value="([^"]*)"`)
var consentBox = regexp.MustCompile(`name="consent" value="([^"]*)"`)

func (u *user) open(authURL string) error {
	u.t.Helper()
	resp, err := http.Get(authURL)
	if err != nil {
		return err
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	m := hiddenRequest.FindSubmatch(page)
	if resp.StatusCode != 200 || m == nil {
		u.t.Errorf("login page: %d %s", resp.StatusCode, page)
		return io.ErrUnexpectedEOF
	}
	var offered []string
	for _, c := range consentBox.FindAllSubmatch(page, -1) {
		offered = append(offered, html.UnescapeString(string(c[1])))
	}
	u.asked = append(u.asked, offered)
	consent := offered
	if u.logins < len(u.rounds) && u.rounds[u.logins] != nil {
		consent = u.rounds[u.logins]
	}
	u.logins++
	form := url.Values{"request": {html.UnescapeString(string(m[1]))}, "username": {"alice"}, "password": {"wonderland"}, "consent": consent}
	resp, err = http.PostForm(strings.TrimSuffix(strings.SplitN(authURL, "?", 2)[0], "/authorize")+"/authorize", form)
	if err != nil {
		return err
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), "you may close this window") {
		u.t.Errorf("after the login: %d %s", resp.StatusCode, body)
	}
	return nil
}

// TestEndToEnd runs the whole flow against the real authorization server
// process: the client's first request gets 401, it discovers the server's
// metadata and the authorization server's, registers, the user logs in and
// consents to notes.read only, the client calls a notes.read tool; a
// notes.write tool gets 403 insufficient_scope, the user consents again to
// both, and the call goes through. In 2026-07-28 and in a legacy session.
// A token the authorization server issued for this server is refused by
// another notes server (a token for another resource).
func TestEndToEnd(t *testing.T) {
	issuer := start(t, "authserver", "--addr", "127.0.0.1:0", "--user", "alice:wonderland", "--scopes", "notes.read notes.write")
	endpoint := start(t, "notes-server", "--http", "127.0.0.1:0", "--issuer", issuer)
	other := start(t, "notes-server", "--http", "127.0.0.1:0", "--issuer", issuer)
	for _, version := range []string{"", mcp.Version20251125} {
		t.Run("version="+version, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			lb, err := oauth.NewLoopback("127.0.0.1:0", "/callback")
			if err != nil {
				t.Fatal(err)
			}
			defer lb.Close()
			u := &user{t: t, rounds: [][]string{{"notes.read", "offline_access"}, nil}}
			a, err := oauth.New(oauth.Config{Metadata: oauth.ClientMetadata{ClientName: "e2e"}, RedirectURL: lb.RedirectURL(), Browser: lb.Browser(u.open)})
			if err != nil {
				t.Fatal(err)
			}
			c, err := mcphttpclient.Connect(ctx, endpoint, &mcphttpclient.Options{Authorizer: a, MCP: mcpclient.Options{ProtocolVersion: version}})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			notes := authnotes.NewNotesMCPClient(c)
			me, err := notes.WhoAmI(ctx)
			if err != nil || me.Subject != "alice" || !slices.Contains(me.Scopes, "notes.read") || slices.Contains(me.Scopes, "notes.write") {
				t.Fatalf("whoami: %+v, %v; want alice with notes.read only", me, err)
			}
			if list, err := notes.ListNotes(ctx); err != nil {
				t.Fatalf("list: %v, %v", list, err)
			}
			n, err := notes.AddNote(ctx, "buy milk")
			if err != nil || n.Text != "buy milk" {
				t.Fatalf("add after a step-up: %+v, %v", n, err)
			}
			if u.logins != 2 || !slices.Contains(u.asked[1], "notes.write") || !slices.Contains(u.asked[1], "notes.read") {
				t.Errorf("%d logins asking %v; want two, the second for notes.read and notes.write", u.logins, u.asked)
			}
			if list, err := notes.ListNotes(ctx); err != nil || !slices.ContainsFunc(list, func(x authnotes.Note) bool { return x.Text == "buy milk" }) {
				t.Errorf("list after add: %v, %v", list, err)
			}
			// The token is this server's: another server refuses it.
			req, _ := http.NewRequest(http.MethodPost, other, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("Authorization", "Bearer "+a.Token().AccessToken)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != 401 || !strings.Contains(resp.Header.Get("WWW-Authenticate"), `error="invalid_token"`) {
				t.Errorf("another server took the token: %d %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
			}
		})
	}
}
