// Command bridge puts a stdio MCP server behind Streamable HTTP, so that the
// official conformance suite, which speaks only HTTP, can test the server's
// stdio transport: each session the suite opens with initialize starts one
// server process, and the bridge relays the session's JSON-RPC messages to
// its stdin and from its stdout, one message per line, unchanged.
//
//	bridge -- ./conformance --stdio
//
// It listens on a free port of 127.0.0.1 and prints its endpoint,
// http://127.0.0.1:PORT/mcp, as its one line on stdout. It implements only
// the part of Streamable HTTP (2025-03-26 to 2025-11-25) a relay needs: POST
// of one message (a request is answered on an event stream that carries the
// server's messages sent while it is pending, then its response), GET for
// the standalone stream, DELETE to end the session (and its process), and
// Mcp-Session-Id. It does not check Origin, Host or MCP-Protocol-Version and
// never resumes a stream: scenarios about the HTTP transport itself test the
// bridge, not the server, and run.sh runs those over HTTP only.
//
// A message from the server is sent on the stream of the request it belongs
// to: a response by its id, a progress notification by its progress token,
// any other message (a log message, a sampling or elicitation request) on
// the stream of the newest pending request, or on the standalone stream
// when none is pending.
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttp"
)

func main() {
	flag.Usage = func() { fmt.Fprintln(os.Stderr, "usage: bridge -- COMMAND [ARG...]") }
	flag.Parse()
	if flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		logger.Error("bridge: listen", "err", err)
		os.Exit(1)
	}
	b := &bridge{argv: flag.Args(), logger: logger, sessions: map[string]*session{}}
	mux := http.NewServeMux()
	mux.Handle("/mcp", b)
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	mcphttp.PromptShutdown(hs) // a connection dialled and never used does not hold Shutdown
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		hs.Shutdown(sctx)
	}()
	fmt.Printf("http://%s/mcp\n", ln.Addr())
	err = hs.Serve(ln)
	b.closeAll()
	if !errors.Is(err, http.ErrServerClosed) {
		logger.Error("bridge: serve", "err", err)
		os.Exit(1)
	}
}

// bridge serves the sessions, each with its server process.
type bridge struct {
	argv   []string
	logger *slog.Logger

	mu       sync.Mutex
	sessions map[string]*session
}

// message is the part of a JSON-RPC message the bridge routes by.
type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		ProgressToken json.RawMessage `json:"progressToken"`
		Meta          struct {
			ProgressToken json.RawMessage `json:"progressToken"`
		} `json:"_meta"`
	} `json:"params"`
}

func (m *message) isRequest() bool { return m.Method != "" && len(m.ID) > 0 && string(m.ID) != "null" }

func (b *bridge) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	id := r.Header.Get("Mcp-Session-Id")
	b.mu.Lock()
	s := b.sessions[id]
	b.mu.Unlock()
	switch r.Method {
	case http.MethodPost:
		b.post(w, r, s)
	case http.MethodGet:
		if s == nil {
			httpError(w, http.StatusNotFound, "no such session")
			return
		}
		s.standalone(w, r)
	case http.MethodDelete:
		if s == nil {
			httpError(w, http.StatusNotFound, "no such session")
			return
		}
		b.mu.Lock()
		delete(b.sessions, id)
		b.mu.Unlock()
		s.close()
		w.WriteHeader(http.StatusOK)
	default:
		w.Header().Set("Allow", "GET, POST, DELETE")
		httpError(w, http.StatusMethodNotAllowed, "method not allowed")
	}
}

func (b *bridge) post(w http.ResponseWriter, r *http.Request, s *session) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 4<<20))
	var m message
	if err == nil {
		err = json.Unmarshal(body, &m)
	}
	if err != nil {
		httpError(w, http.StatusBadRequest, "the body is not one JSON-RPC message")
		return
	}
	if s == nil {
		if m.Method != "initialize" || r.Header.Get("Mcp-Session-Id") != "" {
			httpError(w, http.StatusNotFound, "no such session")
			return
		}
		if s, err = b.start(); err != nil {
			httpError(w, http.StatusInternalServerError, err.Error())
			return
		}
		w.Header().Set("Mcp-Session-Id", s.id)
	}
	if !m.isRequest() {
		// A notification, or the client's answer to a server request.
		if err := s.send(body); err != nil {
			httpError(w, http.StatusBadGateway, err.Error())
			return
		}
		w.WriteHeader(http.StatusAccepted)
		return
	}
	token := m.Params.Meta.ProgressToken
	out, err := s.call(string(m.ID), string(token), body)
	if err != nil {
		httpError(w, http.StatusBadGateway, err.Error())
		return
	}
	defer s.done(string(m.ID))
	stream(w, r, out, true)
}

// start starts a server process for a new session.
func (b *bridge) start() (*session, error) {
	var raw [16]byte
	rand.Read(raw[:])
	s, err := startSession(hex.EncodeToString(raw[:]), b.argv, b.logger)
	if err != nil {
		return nil, err
	}
	b.mu.Lock()
	b.sessions[s.id] = s
	b.mu.Unlock()
	return s, nil
}

func (b *bridge) closeAll() {
	b.mu.Lock()
	defer b.mu.Unlock()
	for id, s := range b.sessions {
		s.close()
		delete(b.sessions, id)
	}
}

// stream writes the messages of out as server-sent events until out is
// closed (or, with untilResponse, until a response has been written) or
// the client goes away.
func stream(w http.ResponseWriter, r *http.Request, out <-chan []byte, untilResponse bool) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	rc.Flush()
	for {
		select {
		case msg, ok := <-out:
			if !ok {
				return
			}
			fmt.Fprintf(w, "event: message\ndata: %s\n\n", msg)
			rc.Flush()
			var m message
			if untilResponse && json.Unmarshal(msg, &m) == nil && m.Method == "" {
				return
			}
		case <-r.Context().Done():
			return
		}
	}
}

func httpError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":%q}}`, msg)
}
