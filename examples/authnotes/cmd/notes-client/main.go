// Command notes-client logs the user in to the authnotes server and calls
// its tools: the OAuth flow of ext/oauth, with the authorization server's
// redirect received on a loopback address.
//
//	notes-client --url http://127.0.0.1:8090/mcp add "buy milk"
//	notes-client --url http://127.0.0.1:8090/mcp list
//
// It prints the URL to open (or opens it with --open) and waits for the
// login to come back.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/rpcgen/rpcgen/examples/authnotes"
	"github.com/rpcgen/rpcgen/ext/oauth"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttpclient"
)

func main() {
	endpoint := flag.String("url", "http://127.0.0.1:8090/mcp", "the MCP endpoint")
	open := flag.Bool("open", false, "open the login page in the browser")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: notes-client [--url URL] [--open] add TEXT | list | whoami")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(*endpoint, *open, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "notes-client:", err)
		os.Exit(1)
	}
}

func run(endpoint string, open bool, args []string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	lb, err := oauth.NewLoopback("127.0.0.1:0", "/callback")
	if err != nil {
		return err
	}
	defer lb.Close()
	show := oauth.PrintURL(os.Stderr)
	if open {
		show = oauth.OpenBrowser
	}
	a, err := oauth.New(oauth.Config{
		Metadata:    oauth.ClientMetadata{ClientName: "authnotes client"},
		RedirectURL: lb.RedirectURL(),
		Browser:     lb.Browser(show),
	})
	if err != nil {
		return err
	}
	c, err := mcphttpclient.Connect(ctx, endpoint, &mcphttpclient.Options{Authorizer: a})
	if err != nil {
		return err
	}
	defer c.Close()
	notes := authnotes.NewNotesMCPClient(c)
	var out any
	switch args[0] {
	case "add":
		out, err = notes.AddNote(ctx, strings.Join(args[1:], " "))
	case "list":
		out, err = notes.ListNotes(ctx)
	case "whoami":
		out, err = notes.WhoAmI(ctx)
	default:
		return fmt.Errorf("unknown command %q", args[0])
	}
	if err != nil {
		return err
	}
	return json.NewEncoder(os.Stdout).Encode(out)
}
