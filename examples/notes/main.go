// Command notes is an MCP server for a small notes store: the methods of the
// Notes interface become the tools add_note, search_notes, get_note,
// delete_note and reindex, with descriptions and JSON Schemas generated from
// the interface's doc comments and types.
//
//	go run ./examples/notes                       # serve MCP on stdin/stdout (what an MCP host starts)
//	go run ./examples/notes --http 127.0.0.1:8080 # serve MCP over HTTP at http://127.0.0.1:8080/mcp
//	go run ./examples/notes --http 127.0.0.1:8080 --cors-origin http://localhost:5173
//	                                              # ... and let that origin's pages call it (CORS)
//	go run ./examples/notes --demo                # start itself as a server and call every tool
//
// Over stdio, stdout carries nothing but MCP messages. Over HTTP, stdout gets
// one line, the endpoint's URL, once the server listens. Logs go to stderr.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"time"

	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		// After the first signal starts a graceful shutdown, a second one
		// kills the process at once.
		<-ctx.Done()
		stop()
	}()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// run is the whole program: it parses args, serves until ctx ends (or stdin
// closes, over stdio) and returns the exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("notes", flag.ContinueOnError)
	fs.SetOutput(stderr)
	demo := fs.Bool("demo", false, "start this program as an MCP server subprocess and call every tool through the generated typed client")
	pause := fs.Duration("reindex-pause", 50*time.Millisecond, "how long reindex works on each note")
	httpAddr := fs.String("http", "", "serve MCP over HTTP on this `address` (host:port; the host defaults to 127.0.0.1, port 0 picks a free one) at the path /mcp, instead of stdio")
	var cors []string
	fs.Func("cors-origin", "with --http, let the browser pages of this `origin` (scheme://host[:port]) call the endpoint (CORS; repeatable, \"*\" for any)", func(o string) error {
		cors = append(cors, o)
		return nil
	})
	if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
		return 0
	} else if err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "notes: unexpected arguments %q\n", fs.Args())
		return 2
	}
	logger := slog.New(slog.NewTextHandler(stderr, nil))

	var err error
	switch {
	case *demo:
		err = runDemo(ctx, stdout)
	case *httpAddr != "":
		opts := &mcphttp.Options{Logger: logger}
		if len(cors) > 0 {
			opts.CORS = &mcphttp.CORS{AllowedOrigins: cors}
		}
		err = serveHTTP(ctx, newServer(newStore(*pause), logger), *httpAddr, opts, stdout)
	default:
		err = newServer(newStore(*pause), logger).ServeStdio(ctx)
	}
	if err != nil && ctx.Err() == nil {
		fmt.Fprintln(stderr, "notes:", err)
		return 1
	}
	return 0
}

// newServer serves st's methods as MCP tools, and its tags as the
// io.github.rpcgen/notes-tags extension.
func newServer(st *store, logger *slog.Logger) *mcpserver.Server {
	srv := mcpserver.New(mcp.Implementation{Name: "notes", Title: "Notes", Version: "1.0.0", Icons: NotesIcons}, &mcpserver.Options{
		Instructions: "A notes store. Add notes with add_note, find them with search_notes, and read one with get_note.",
		Logger:       logger,
	})
	RegisterNotes(srv, loggedNotes{st, logger})
	srv.AddExtension(TagsExtension(st))
	srv.AddSkills(NotesSkills) // skills/notes-triage, served by the Skills extension
	return srv
}

// shutdownTimeout bounds how long a stopping HTTP server waits for the calls
// in flight to finish before it cancels them.
const shutdownTimeout = 10 * time.Second

// serveHTTP serves srv over HTTP (Streamable HTTP in both eras, and the
// 2024-11-05 HTTP+SSE transport) at /mcp on addr until ctx ends, then shuts
// down gracefully: new requests are refused, the calls in flight finish (for
// at most shutdownTimeout), and the listener closes. It writes the endpoint's
// URL as one line to stdout once it listens. opts.Logger gets the logs.
func serveHTTP(ctx context.Context, srv *mcpserver.Server, addr string, opts *mcphttp.Options, stdout io.Writer) error {
	if opts.CORS != nil {
		// Checked before listening: a bad origin is a usage error.
		if err := opts.CORS.Validate(); err != nil {
			return err
		}
	}
	logger := opts.Logger
	ln, err := net.Listen("tcp", listenAddr(addr))
	if err != nil {
		return err
	}
	h := mcphttp.NewHandler(srv, opts)
	// Timeouts and the header bound for clients that send slowly or too
	// much (docs/http.md, Timeouts): ReadTimeout bounds a request's headers
	// and body, not its call or its event stream, which clear the deadline.
	hs := &http.Server{
		Handler:           httpRoutes(h),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	mcphttp.PromptShutdown(hs) // a connection dialled and never used does not hold Shutdown
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	url := "http://" + ln.Addr().String() + "/mcp"
	logger.Info("notes: serving MCP over HTTP", "url", url)
	if _, err := fmt.Fprintln(stdout, url); err != nil {
		hs.Close()
		return err
	}

	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	logger.Info("notes: shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	// The handler first: it ends the long-lived streams and waits for the
	// calls in flight, which http.Server.Shutdown would wait on forever.
	herr := h.Shutdown(sctx)
	if herr != nil {
		logger.Warn("notes: calls still running at the shutdown deadline are cancelled", "err", herr)
		h.Close()
	}
	serr := hs.Shutdown(sctx)
	if serr != nil {
		logger.Warn("notes: connections still open at the shutdown deadline are closed", "err", serr)
		hs.Close()
	}
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return errors.Join(herr, serr)
}

// httpRoutes mounts the MCP endpoint at /mcp.
func httpRoutes(h http.Handler) *http.ServeMux {
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	return mux
}

// listenAddr completes the --http address: a missing host means 127.0.0.1,
// and a bare port number is a port on 127.0.0.1.
func listenAddr(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return net.JoinHostPort("127.0.0.1", addr)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port)
}

// loggedNotes logs the calls of a Notes that end in an error: one stopped
// because its context ended (the client cancelled it, or went away) at level
// Info, so the log shows when a call stopped and why; any other at Debug.
type loggedNotes struct {
	Notes
	logger *slog.Logger
}

func (l loggedNotes) failed(method string, start time.Time, err error) {
	switch {
	case err == nil:
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		l.logger.Info("notes: call stopped", "method", method, "err", err, "after", time.Since(start))
	default:
		l.logger.Debug("notes: call failed", "method", method, "err", err, "after", time.Since(start))
	}
}

func (l loggedNotes) AddNote(ctx context.Context, note NewNote) (Note, error) {
	start := time.Now()
	n, err := l.Notes.AddNote(ctx, note)
	l.failed("AddNote", start, err)
	return n, err
}

func (l loggedNotes) SearchNotes(ctx context.Context, query string, limit *int) ([]Note, error) {
	start := time.Now()
	ns, err := l.Notes.SearchNotes(ctx, query, limit)
	l.failed("SearchNotes", start, err)
	return ns, err
}

func (l loggedNotes) GetNote(ctx context.Context, id NoteID) (Note, error) {
	start := time.Now()
	n, err := l.Notes.GetNote(ctx, id)
	l.failed("GetNote", start, err)
	return n, err
}

func (l loggedNotes) DeleteNote(ctx context.Context, id NoteID) error {
	start := time.Now()
	err := l.Notes.DeleteNote(ctx, id)
	l.failed("DeleteNote", start, err)
	return err
}

func (l loggedNotes) Reindex(ctx context.Context) (ReindexReport, error) {
	start := time.Now()
	r, err := l.Notes.Reindex(ctx)
	l.failed("Reindex", start, err)
	return r, err
}

// runDemo starts this program again as an MCP server and calls each tool,
// then reads a note as a resource, completes a note id and gets a prompt,
// all through NotesMCPClient, the typed client generated from the interface.
func runDemo(ctx context.Context, stdout io.Writer) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	cmd := exec.Command(exe, "--reindex-pause=20ms")
	cmd.Stderr = os.Stderr
	client, err := mcpclient.DialCommand(ctx, cmd, mcpclient.Options{Info: mcp.Implementation{Name: "notes-demo", Version: "1.0.0"}})
	if err != nil {
		return err
	}
	defer client.Close()
	fmt.Fprintf(stdout, "connected to %s %s, MCP %s\n", client.ServerInfo().Name, client.ServerInfo().Version, client.ProtocolVersion())

	tools, err := client.ListTools(ctx)
	if err != nil {
		return err
	}
	for _, t := range tools {
		fmt.Fprintf(stdout, "tool %-13s %s\n", t.Name, firstLine(t.Description))
	}

	notes := NewNotesMCPClient(client)
	first, err := notes.AddNote(ctx, NewNote{Text: "Buy oat milk", Tags: []string{"shopping"}})
	if err != nil {
		return err
	}
	if _, err := notes.AddNote(ctx, NewNote{Text: "Call the plumber about the milk-white stain", Priority: High}); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "add_note     -> %s %q (%s)\n", first.ID, first.Text, first.Priority)

	two := 2
	found, err := notes.SearchNotes(ctx, "milk", &two)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "search_notes -> %d notes, newest first: %s, %s\n", len(found), found[0].ID, found[1].ID)

	got, err := notes.GetNote(ctx, first.ID)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "get_note     -> %q tagged %v\n", got.Text, got.Tags)

	report, err := notes.Reindex(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "reindex      -> %d notes, %d terms\n", report.Notes, report.Terms)

	if err := notes.DeleteNote(ctx, first.ID); err != nil {
		return err
	}
	_, err = notes.GetNote(ctx, first.ID)
	fmt.Fprintf(stdout, "delete_note  -> then get_note fails: %v\n", err)

	// A call that breaks the schema comes back as a tool error naming the field.
	_, err = notes.AddNote(ctx, NewNote{Text: ""})
	fmt.Fprintf(stdout, "add_note with empty text -> %v\n", err)

	// The same interface's resource, completion and prompt, through the same
	// typed client: resources/read, completion/complete, prompts/get.
	second, err := notes.Note(ctx, found[0].ID)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "resource notes://%s -> %q (%s)\n", second.ID, second.Text, second.Priority)
	ids, err := notes.CompleteNoteID(ctx, "n")
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "complete notes://{id} from \"n\" -> %v\n", ids)
	prompt, err := notes.ReviewNotes(ctx, High)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "prompt review_notes(priority=high) -> %q\n", prompt)
	return nil
}

func firstLine(s string) string {
	for i, r := range s {
		if r == '\n' {
			return s[:i]
		}
	}
	return s
}
