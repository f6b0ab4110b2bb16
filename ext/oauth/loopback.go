package oauth

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os/exec"
	"runtime"
	"sync"
)

// Loopback receives the authorization server's redirect on a loopback
// address, for command-line and desktop programs (RFC 8252 §7.3): give its
// RedirectURL to Config.RedirectURL and its Browser to Config.Browser.
type Loopback struct {
	ln   net.Listener
	srv  *http.Server
	path string

	mu      sync.Mutex
	waiting chan url.Values // the flow waiting for its redirect, nil when none
}

// NewLoopback listens on addr ("127.0.0.1:0" for any free port; a fixed
// port when the authorization server wants the exact redirect URI) and
// serves the redirect at path ("/callback").
func NewLoopback(addr, path string) (*Loopback, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("oauth: loopback redirect: %w", err)
	}
	if path == "" || path[0] != '/' {
		path = "/" + path
	}
	l := &Loopback{ln: ln, path: path}
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+path, l.serve)
	l.srv = &http.Server{Handler: mux}
	go l.srv.Serve(ln)
	return l, nil
}

// RedirectURL returns the redirect URI, http://127.0.0.1:PORT/path.
func (l *Loopback) RedirectURL() string {
	return "http://" + l.ln.Addr().String() + l.path
}

// Close stops listening.
func (l *Loopback) Close() error { return l.srv.Close() }

func (l *Loopback) serve(w http.ResponseWriter, r *http.Request) {
	l.mu.Lock()
	ch := l.waiting
	l.waiting = nil
	l.mu.Unlock()
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	if ch == nil {
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, "<!doctype html><title>Not expected</title><p>No login is waiting for this redirect.\n")
		return
	}
	ch <- r.URL.Query()
	io.WriteString(w, "<!doctype html><title>Logged in</title><p>The program has what it needs; you may close this window.\n")
}

// Browser returns a Browser that has open show the user the authorization
// URL (OpenBrowser, PrintURL or your own) and waits for the redirect.
func (l *Loopback) Browser(open func(authURL string) error) Browser {
	return func(ctx context.Context, authURL string) (url.Values, error) {
		ch := make(chan url.Values, 1)
		l.mu.Lock()
		l.waiting = ch
		l.mu.Unlock()
		defer func() {
			l.mu.Lock()
			if l.waiting == ch {
				l.waiting = nil
			}
			l.mu.Unlock()
		}()
		if err := open(authURL); err != nil {
			return nil, err
		}
		select {
		case v := <-ch:
			return v, nil
		case <-ctx.Done():
			return nil, fmt.Errorf("no redirect came back: %w", ctx.Err())
		}
	}
}

// PrintURL returns an open function for Loopback.Browser that asks the user
// to visit the URL.
func PrintURL(w io.Writer) func(string) error {
	return func(u string) error {
		_, err := fmt.Fprintf(w, "To log in, open this URL in a browser:\n\n  %s\n\n", u)
		return err
	}
}

// OpenBrowser opens u in the user's browser (xdg-open, open or rundll32).
func OpenBrowser(u string) error {
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		cmd = exec.Command("open", u)
	case "windows":
		cmd = exec.Command("rundll32", "url.dll,FileProtocolHandler", u)
	default:
		cmd = exec.Command("xdg-open", u)
	}
	if err := cmd.Start(); err != nil {
		return errors.Join(errors.New("oauth: open a browser"), err)
	}
	go cmd.Wait()
	return nil
}
