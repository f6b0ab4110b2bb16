// Package cmdline is rpcgen's command line: the rpcgen command's flags, as a
// pflag set filling Options, and the splitting of a //go:generate line into
// words. The command parses its arguments with it, and the golden tests
// parse their cases' args with it, so a case says what a user would type.
package cmdline

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/pflag"
)

// Options are the parsed flags of the rpcgen command.
type Options struct {
	Out            string
	Dir            string
	Tags           []string
	SchemaDir      string
	OpenRPC        string
	TypeScript     string
	TSRuntime      string
	Docs           string
	NoDiscover     bool
	APIVersion     string
	OpenRPCVersion string
	Servers        []string

	License, LicenseURL               string
	Contact, ContactEmail, ContactURL string

	// The MCP registry's server.json and the Server Card, and what they
	// say of the server.
	ServerJSON, ServerCard                         string
	ServerName, ServerTitle, ServerDescription     string
	Repository, RepositorySubfolder, Website       string
	Packages, Remotes, Env, EnvRequired, EnvSecret []string

	Check   bool
	NoCache bool
	Strict  bool
	Version bool
	Help    bool
}

// NewFlagSet returns the flag set of the rpcgen command, which fills o
// when it parses; it reports errors to stderr and its Usage is the
// caller's to set.
func NewFlagSet(o *Options, stderr io.Writer) *pflag.FlagSet {
	fs := pflag.NewFlagSet("rpcgen", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.SortFlags = false
	fs.StringVarP(&o.Out, "out", "o", "", "output file, relative to the package directory (default: first interface name in lower case + \"_rpcgen.go\")")
	fs.StringVar(&o.Dir, "dir", ".", "directory of the package holding the interfaces")
	fs.StringSliceVar(&o.Tags, "tags", nil, "comma-separated build tags to apply when loading the package")
	fs.StringVar(&o.SchemaDir, "schema-dir", "", "also write JSON Schema files (params and result of every method) to this directory, relative to the package directory")
	fs.StringVar(&o.OpenRPC, "openrpc", "", "also write the OpenRPC document of the services to this file, relative to the package directory; the dispatcher then answers rpc.discover with it")
	fs.StringVar(&o.TypeScript, "ts", "", "also write a TypeScript client (JSON-RPC over HTTP with fetch) to this file, relative to the package directory")
	fs.StringVar(&o.TSRuntime, "ts-runtime", "", "with --ts, write the TypeScript runtime the client imports to this file, relative to the package directory (default: rpcgen_runtime.ts beside the client); clients sharing one share RPCError and JSONRPCClient")
	fs.StringVar(&o.Docs, "docs", "", "also write a Markdown reference of the services to this file, relative to the package directory")
	fs.BoolVar(&o.NoDiscover, "no-discover", false, "with --openrpc, do not answer rpc.discover")
	fs.StringVar(&o.APIVersion, "api-version", "0.0.0", "the API version the OpenRPC document and the Markdown reference state")
	fs.StringVar(&o.OpenRPCVersion, "openrpc-version", "1.3.2", "the OpenRPC version of --openrpc's document: 1.3.2, or 1.2.6 for tools that know no later one (error examples are left out)")
	fs.StringArrayVar(&o.Servers, "server", nil, "a URL the services are served at, for the OpenRPC document's servers and the reference (repeatable)")
	fs.StringVar(&o.License, "license", "", "the API's license, e.g. an SPDX identifier, for the OpenRPC document's info and the reference")
	fs.StringVar(&o.LicenseURL, "license-url", "", "the URL of the API's license")
	fs.StringVar(&o.Contact, "contact", "", "who to contact about the API: a name")
	fs.StringVar(&o.ContactEmail, "contact-email", "", "who to contact about the API: an email address")
	fs.StringVar(&o.ContactURL, "contact-url", "", "who to contact about the API: a URL")
	fs.StringVar(&o.ServerJSON, "server-json", "", "also write the MCP registry's server.json (schema 2025-12-11) to this file, relative to the package directory; needs --server-name")
	fs.StringVar(&o.ServerCard, "server-card", "", "also write a Server Card (SEP-2127, a draft) to this file, relative to the package directory; needs --server-name and --remote")
	fs.StringVar(&o.ServerName, "server-name", "", "the server's name in reverse-DNS form, for server.json and the Server Card (io.github.you/notes)")
	fs.StringVar(&o.ServerTitle, "server-title", "", "the server's display name, for server.json and the Server Card")
	fs.StringVar(&o.ServerDescription, "server-description", "", "what the server does, at most 100 characters (default: the first sentence of the first interface's doc comment)")
	fs.StringVar(&o.Repository, "repository", "", "the URL of the server's source repository on github.com or gitlab.com")
	fs.StringVar(&o.RepositorySubfolder, "repository-subfolder", "", "the server's directory in the repository")
	fs.StringVar(&o.Website, "website", "", "the URL of the server's home page")
	fs.StringArrayVar(&o.Packages, "package", nil, "a package that runs the server over stdio, TYPE:IDENTIFIER with TYPE npm, pypi, nuget or oci (oci:ghcr.io/you/notes:1.0.0); repeatable")
	fs.StringArrayVar(&o.Remotes, "remote", nil, "a URL the server is served at over Streamable HTTP (or sse=URL for HTTP+SSE); repeatable")
	fs.StringArrayVar(&o.Env, "env", nil, "an environment variable the server reads, NAME=DESCRIPTION, set for each package; repeatable")
	fs.StringSliceVar(&o.EnvRequired, "env-required", nil, "comma-separated names of --env variables that must be set")
	fs.StringSliceVar(&o.EnvSecret, "env-secret", nil, "comma-separated names of --env variables that hold secrets")
	fs.BoolVar(&o.Check, "check", false, "write nothing; exit 1 with a diff if the committed output is stale (with no interface named: check every //go:generate line of the package that runs rpcgen, as rpcgen check does)")
	fs.BoolVar(&o.NoCache, "no-cache", false, "generate and format afresh instead of reusing the output, the formatting or the package's file list of an earlier run with the same inputs (kept under $RPCGEN_CACHE, by default the user cache directory; RPCGEN_CACHE=off disables it)")
	fs.BoolVar(&o.Strict, "strict", false, "treat warnings (such as a method without a doc comment, whose tool then has no description) as errors")
	fs.BoolVar(&o.Version, "version", false, "print the version (module version and VCS revision) and exit")
	fs.BoolVarP(&o.Help, "help", "h", false, "show this help")
	return fs
}

// SplitWords splits the text of a //go:generate line into words as go
// generate does: at spaces and tabs, a word starting with a double quote
// being a Go string literal that a space, a tab or the end must follow.
func SplitWords(text string) ([]string, error) {
	var words []string
	for {
		text = strings.TrimLeft(text, " \t")
		if text == "" {
			return words, nil
		}
		if text[0] != '"' {
			end := strings.IndexAny(text, " \t")
			if end < 0 {
				end = len(text)
			}
			words = append(words, text[:end])
			text = text[end:]
			continue
		}
		end := 1
		for end < len(text) && text[end] != '"' {
			if text[end] == '\\' {
				end++
			}
			end++
		}
		if end >= len(text) {
			return nil, fmt.Errorf("unterminated quoted argument")
		}
		w, err := strconv.Unquote(text[:end+1])
		if err != nil {
			return nil, fmt.Errorf("bad quoted argument %s", text[:end+1])
		}
		words = append(words, w)
		text = text[end+1:]
		if text != "" && text[0] != ' ' && text[0] != '\t' {
			return nil, fmt.Errorf("no space after quoted argument")
		}
	}
}

// ServerMeta is the shape of generator.ServerMeta (a value converts to it):
// cmdline does not import the generator, whose tests import cmdline.
type ServerMeta struct {
	Name, Title, Description                    string
	Repository, RepositorySubfolder, WebsiteURL string
	Packages, Remotes                           []string
	Env, EnvRequired, EnvSecret                 []string
}

// ServerMeta is what the flags say of the server for server.json and the
// Server Card.
func (o *Options) ServerMeta() ServerMeta {
	return ServerMeta{Name: o.ServerName, Title: o.ServerTitle, Description: o.ServerDescription,
		Repository: o.Repository, RepositorySubfolder: o.RepositorySubfolder, WebsiteURL: o.Website,
		Packages: o.Packages, Remotes: o.Remotes, Env: o.Env, EnvRequired: o.EnvRequired, EnvSecret: o.EnvSecret}
}
