package model

import (
	"bytes"
	"errors"
	"fmt"
	"go/token"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/rpcgen/rpcgen/generator/internal/diag"
)

// App is a tool's MCP App view (extension io.modelcontextprotocol/ui), from
// //rpcgen:app: an HTML file of the package embedded in the program and
// served as a ui:// resource, which the tool's _meta names.
type App struct {
	URI   string // ui://...
	File  string // the file as the directive names it, slash-separated, relative to the package's directory
	Name  string // the resource's name; default: the tool's name
	Title string // the resource's display name, "" when not given
	// Description of the resource; "" when not given.
	Description string
	// CSP lists the origins the view needs, by _meta.ui.csp member
	// (connectDomains, resourceDomains, frameDomains, baseUriDomains); nil
	// members are left out.
	CSP map[string][]string
	// Permissions are the sandbox permissions the view asks for
	// (camera, microphone, geolocation, clipboardWrite).
	Permissions []string
	Domain      string // a dedicated sandbox origin, host-dependent; "" when not given
	Border      *bool  // prefersBorder; nil leaves it to the host
	// Visibility says who may call the tool: "model", "app" or both; nil
	// for the default (both).
	Visibility []string
	uriPos     token.Position
}

// MaxAppHTML bounds a view's HTML file: a host loads it into an iframe whole.
const MaxAppHTML = 4 << 20

// appCSP maps the directive's CSP keys to _meta.ui.csp's members, in the
// order the generated object lists them.
var appCSP = []struct{ key, member string }{
	{"connect", "connectDomains"},
	{"resources", "resourceDomains"},
	{"frames", "frameDomains"},
	{"baseuri", "baseUriDomains"},
}

// AppCSPMembers are the members of _meta.ui.csp in order.
func AppCSPMembers() []string {
	out := make([]string, len(appCSP))
	for i, c := range appCSP {
		out[i] = c.member
	}
	return out
}

var appPermissions = []string{"camera", "microphone", "geolocation", "clipboardWrite"}

// buildApp reads a tool's //rpcgen:app directive; dir is the package's
// directory and read reads (and records) a file.
func buildApp(m *Method, d *Directive, dir string, read func(string) ([]byte, error), errs *diag.Collector) *App {
	if d == nil {
		return nil
	}
	if m.Tool == nil {
		errs.At(d.Pos, "method %s: //rpcgen:app gives a tool a view, and %s is not a tool", m.Name, m.Name)
		return nil
	}
	before := len(errs.List)
	a := &App{Name: m.Tool.Name}
	uri, upos, ok := d.value("uri")
	if !ok {
		errs.At(d.Pos, "method %s: //rpcgen:app needs uri=ui://...", m.Name)
	} else if problem := checkAppURI(uri); problem != "" {
		errs.At(upos, "method %s: //rpcgen:app uri=%s: %s", m.Name, uri, problem)
	}
	a.URI = uri
	a.uriPos = errs.Fset.Position(upos)
	file, fpos, ok := d.value("file")
	switch {
	case !ok:
		errs.At(d.Pos, "method %s: //rpcgen:app needs file=, the view's HTML file in the package's directory", m.Name)
	case file == "" || filepath.IsAbs(file) || !filepath.IsLocal(filepath.FromSlash(file)) || strings.ContainsAny(file, `*?[\`) || file != filepath.ToSlash(filepath.Clean(filepath.FromSlash(file))):
		errs.At(fpos, "method %s: //rpcgen:app file=%s: name a file in or below the package's directory, relative to it, without . or .. elements or the pattern characters * ? [ \\ (go:embed embeds it)", m.Name, file)
	default:
		a.File = file
		if problem := checkAppHTML(filepath.Join(dir, filepath.FromSlash(file)), read); problem != "" {
			errs.At(fpos, "method %s: //rpcgen:app file=%s: %s", m.Name, file, problem)
		}
	}
	if v, _, ok := d.value("name"); ok {
		a.Name = v
	}
	a.Title, _, _ = d.value("title")
	a.Description, _, _ = d.value("description")
	for _, c := range appCSP {
		v, pos, ok := d.value(c.key)
		if !ok {
			continue
		}
		origins := splitList(v)
		if len(origins) == 0 {
			errs.At(pos, "method %s: //rpcgen:app %s= needs at least one origin", m.Name, c.key)
		}
		for _, o := range origins {
			if problem := checkOrigin(o); problem != "" {
				errs.At(pos, "method %s: //rpcgen:app %s=: %q %s", m.Name, c.key, o, problem)
			}
		}
		if a.CSP == nil {
			a.CSP = map[string][]string{}
		}
		a.CSP[c.member] = origins
	}
	if v, pos, ok := d.value("permissions"); ok {
		for _, p := range splitList(v) {
			if !slices.Contains(appPermissions, p) {
				errs.At(pos, "method %s: //rpcgen:app permissions=: %q is not one of %s", m.Name, p, strings.Join(appPermissions, ", "))
			}
			a.Permissions = append(a.Permissions, p)
		}
	}
	if v, pos, ok := d.value("domain"); ok {
		if v == "" || strings.IndexFunc(v, func(r rune) bool { return r <= ' ' || r > '~' || r == '"' || r == '\\' }) >= 0 {
			errs.At(pos, "method %s: //rpcgen:app domain=%q: want a host name the host gives the view's sandbox", m.Name, v)
		}
		a.Domain = v
	}
	a.Border = d.flag("border")
	if v, pos, ok := d.value("visibility"); ok {
		vis := splitList(v)
		if len(vis) == 0 {
			errs.At(pos, "method %s: //rpcgen:app visibility= needs model, app or both", m.Name)
		}
		for _, x := range vis {
			if x != "model" && x != "app" {
				errs.At(pos, "method %s: //rpcgen:app visibility=: %q is neither model (the model may call the tool) nor app (the view may)", m.Name, x)
			}
		}
		a.Visibility = vis
	}
	if len(errs.List) > before {
		return nil
	}
	return a
}

// checkAppURI says what is wrong with a view's URI, or "".
func checkAppURI(uri string) string {
	u, err := url.Parse(uri)
	switch {
	case err != nil:
		return "not a URI: " + strings.TrimPrefix(err.Error(), fmt.Sprintf("parse %q: ", uri))
	case u.Scheme != "ui":
		return "a view's URI has the scheme ui://"
	case u.Opaque != "" || u.Host == "" && u.Path == "":
		return "want ui://, then the view's name (ui://notes/board.html)"
	case strings.ContainsAny(uri, " \t\n{}"):
		return "a view's URI is a fixed URI, without spaces or template expressions"
	}
	return ""
}

// checkAppHTML reads a view's file and says what is wrong with it, or "".
func checkAppHTML(name string, read func(string) ([]byte, error)) string {
	fi, err := os.Lstat(name)
	if err == nil && !fi.Mode().IsRegular() {
		return "not a regular file (go:embed embeds regular files only)"
	}
	if err == nil && fi.Size() > MaxAppHTML {
		return fmt.Sprintf("%d bytes, more than the %d a view may have", fi.Size(), MaxAppHTML)
	}
	src, err := read(name)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err // the path is the user's, as the directive names it
		}
		return err.Error()
	}
	if len(src) > MaxAppHTML {
		return fmt.Sprintf("%d bytes, more than the %d a view may have", len(src), MaxAppHTML)
	}
	if !utf8.Valid(src) {
		return "not UTF-8 text"
	}
	body := bytes.TrimLeft(bytes.TrimPrefix(src, []byte("\ufeff")), " \t\r\n")
	if len(body) == 0 || body[0] != '<' {
		return "not an HTML document: it should begin with <!doctype html> or <html>"
	}
	return ""
}

// checkOrigin says what is wrong with an origin of a CSP list, or "".
func checkOrigin(o string) string {
	u, err := url.Parse(o)
	if err != nil || u.Host == "" {
		return "is not an origin: want scheme://host[:port] (https://api.example.com)"
	}
	switch u.Scheme {
	case "https", "http", "wss", "ws":
	default:
		return "is not an origin of https, http, wss or ws"
	}
	if (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return "is not an origin: it has more than scheme://host[:port]"
	}
	return ""
}

// splitList splits a comma-separated list, dropping empty items.
func splitList(v string) []string {
	var out []string
	for x := range strings.SplitSeq(v, ",") {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}
