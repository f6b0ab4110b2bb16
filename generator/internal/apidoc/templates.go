package apidoc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/mail"
	"net/url"
	"path/filepath"
	"text/template"

	"golang.org/x/tools/go/packages"

	"github.com/rpcgen/rpcgen/generator/internal/model"
	"github.com/rpcgen/rpcgen/generator/internal/schema"
	"github.com/rpcgen/rpcgen/templates"
)

// Options are the Config's settings for the outputs that are not Go.
type Options struct {
	OpenRPC, TypeScript, Docs string // paths, relative to the package directory unless absolute; "" is none
	// TSRuntime is the path of the TypeScript runtime the client imports,
	// relative to the package directory unless absolute; "" is
	// TSRuntimeName beside the client. It needs TypeScript.
	TSRuntime  string
	APIVersion string
	// OpenRPCVersion is the "openrpc" the document states: "" is
	// "1.3.2"; "1.2.6" leaves out the examples 1.2.6 cannot state.
	OpenRPCVersion string
	NoDiscover     bool
	// Servers are the URLs the services are served at.
	Servers []string
	// License, LicenseURL, Contact, ContactEmail and ContactURL are the
	// info the OpenRPC document and the reference state, "" for none.
	License, LicenseURL, Contact, ContactEmail, ContactURL string
}

// Check reports a setting the outputs cannot state: a TypeScript runtime
// path without a TypeScript client or not naming a TypeScript file, a
// server, license or contact URL that is not an absolute URL, or an email
// address that is not one.
func (o Options) Check() error {
	switch o.OpenRPCVersion {
	case "", OpenRPCVersion, OpenRPCVersionLegacy:
	default:
		return fmt.Errorf("--openrpc-version %s: rpcgen writes OpenRPC %s, or %s for tools that know no later version", o.OpenRPCVersion, OpenRPCVersion, OpenRPCVersionLegacy)
	}
	if o.TSRuntime != "" && o.TypeScript == "" {
		return fmt.Errorf("a TypeScript runtime path (%s) needs a TypeScript client (--ts)", o.TSRuntime)
	}
	if rt := o.TSRuntimePath(""); o.TypeScript != "" && tsModuleExts[filepath.Ext(rt)] == "" {
		return fmt.Errorf("the TypeScript runtime %s is not a .ts, .mts or .cts file", o.TSRuntime)
	}
	for _, u := range o.Servers {
		if err := absoluteURL("server", u); err != nil {
			return err
		}
	}
	for _, f := range []struct{ what, v string }{{"license URL", o.LicenseURL}, {"contact URL", o.ContactURL}} {
		if f.v != "" {
			if err := absoluteURL(f.what, f.v); err != nil {
				return err
			}
		}
	}
	if o.ContactEmail != "" {
		if a, err := mail.ParseAddress(o.ContactEmail); err != nil || a.Address != o.ContactEmail {
			return fmt.Errorf("contact email %q is not an email address", o.ContactEmail)
		}
	}
	return nil
}

func absoluteURL(what, v string) error {
	u, err := url.Parse(v)
	if err != nil || !u.IsAbs() || u.Host == "" && u.Opaque == "" {
		return fmt.Errorf("%s %q is not an absolute URL", what, v)
	}
	return nil
}

// Files renders the outputs that are not Go, each from its template in
// package templates, keyed by absolute path (dir is the package directory),
// and returns the compact OpenRPC document when the dispatchers answer
// rpc.discover with it.
func Files(pkg *packages.Package, docs *schema.DocIndex, services []*model.Service, cfg Options, dir string) (map[string][]byte, []byte, error) {
	api := Build(pkg, docs, services, cfg)
	files := map[string][]byte{}
	put := func(path string, data []byte) error {
		if _, dup := files[path]; dup {
			return fmt.Errorf("two outputs would be written to %s: give them different paths", path)
		}
		files[path] = data
		return nil
	}
	var discover []byte
	abs := func(p string) string {
		if filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(dir, p)
	}
	if cfg.OpenRPC != "" {
		doc, err := renderOpenRPC(api)
		if err != nil {
			return nil, nil, err
		}
		if err := put(abs(cfg.OpenRPC), doc); err != nil {
			return nil, nil, err
		}
		if api.Discover {
			var compact bytes.Buffer
			if err := json.Compact(&compact, doc); err != nil {
				return nil, nil, err
			}
			discover = compact.Bytes()
		}
	}
	if cfg.TypeScript != "" {
		client, runtime := abs(cfg.TypeScript), cfg.TSRuntimePath(dir)
		spec, err := tsImportSpec(client, runtime)
		if err != nil {
			return nil, nil, err
		}
		src, err := renderTypeScript(api, spec)
		if err != nil {
			return nil, nil, err
		}
		if err := put(client, src); err != nil {
			return nil, nil, err
		}
		if err := put(runtime, TSRuntimeFile()); err != nil {
			return nil, nil, err
		}
	}
	if cfg.Docs != "" {
		md, err := renderMarkdown(api)
		if err != nil {
			return nil, nil, err
		}
		if err := put(abs(cfg.Docs), md); err != nil {
			return nil, nil, err
		}
	}
	return files, discover, nil
}

// render executes the template file name of package templates on data.
func render(name string, funcs template.FuncMap, data any) ([]byte, error) {
	t, err := template.New(name).Funcs(funcs).ParseFS(templates.FS, name)
	if err != nil {
		return nil, fmt.Errorf("parse template %s: %w", name, err)
	}
	var buf bytes.Buffer
	if err := t.Execute(&buf, data); err != nil {
		return nil, fmt.Errorf("render template %s: %w", name, err)
	}
	return buf.Bytes(), nil
}

// jsonText is JSON for v without HTML escaping, for the templates.
func jsonText(v any) (string, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return string(bytes.TrimSuffix(buf.Bytes(), []byte("\n"))), nil
}

// apiMethods lists the methods of every service, in order.
func apiMethods(api *apiDoc) []*apiMethod {
	var all []*apiMethod
	for _, s := range api.Services {
		all = append(all, s.Methods...)
	}
	return all
}

// apiErrors lists the errors the methods refer to, each once, in order.
func apiErrors(api *apiDoc) []apiError {
	var list []apiError
	seen := map[string]bool{}
	for _, m := range apiMethods(api) {
		for _, e := range m.Errors {
			if !seen[e.Key] {
				seen[e.Key] = true
				list = append(list, e)
			}
		}
	}
	return list
}
