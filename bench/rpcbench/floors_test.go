package rpcbench

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// The bytes the ping-pong floor sends and expects: the request rpcgen's client sends
// for Add(2, 3) and the response its server sends back.
var (
	pingRequest  = []byte(`{"jsonrpc":"2.0","id":1,"method":"add","params":{"a":2,"b":3}}`)
	pingResponse = []byte(`{"jsonrpc":"2.0","id":1,"result":5}`)
)

var errPingMismatch = errors.New("ping-pong: unexpected bytes")

// pingpongServe answers each request line with the response line, checking the
// request's bytes but parsing nothing.
func pingpongServe(r io.Reader, w io.Writer) error {
	br := bufio.NewReaderSize(r, 64<<10)
	bw := bufio.NewWriterSize(w, 16<<10)
	for {
		line, err := br.ReadSlice('\n')
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if !bytes.Equal(line[:len(line)-1], pingRequest) {
			return fmt.Errorf("%w: request %q", errPingMismatch, line)
		}
		bw.Write(pingResponse)
		bw.WriteByte('\n')
		if err := bw.Flush(); err != nil {
			return err
		}
	}
}

// pingpongClient returns the ping-pong op over s for c callers. One caller writes
// the request line and reads the response line itself. Several callers pipeline on
// the one stream: each writes its request under a lock and queues itself, and a
// reader goroutine hands the responses out in order (the server answers in order).
func pingpongClient(tb testing.TB, s stream, c int) op {
	line := append(bytes.Clone(pingRequest), '\n')
	br := bufio.NewReaderSize(s.Reader, 64<<10)
	if c == 1 {
		return func(int64, int) error {
			if _, err := s.Write(line); err != nil {
				return err
			}
			resp, err := br.ReadSlice('\n')
			if err != nil {
				return err
			}
			if !bytes.Equal(resp[:len(resp)-1], pingResponse) {
				return fmt.Errorf("%w: response %q", errPingMismatch, resp)
			}
			return nil
		}
	}
	var mu sync.Mutex
	queue := make(chan chan error, 4*c)
	dead := make(chan struct{})
	var readErr error
	go func() {
		defer close(dead)
		for {
			resp, err := br.ReadSlice('\n')
			if err != nil {
				readErr = err
				return
			}
			done := <-queue
			if !bytes.Equal(resp[:len(resp)-1], pingResponse) {
				done <- fmt.Errorf("%w: response %q", errPingMismatch, resp)
				continue
			}
			done <- nil
		}
	}()
	dones := make([]chan error, c)
	for i := range dones {
		dones[i] = make(chan error, 1)
	}
	return func(_ int64, worker int) error {
		done := dones[worker]
		mu.Lock()
		queue <- done
		_, err := s.Write(line)
		mu.Unlock()
		if err != nil {
			return err
		}
		select {
		case err := <-done:
			return err
		case <-dead:
			return fmt.Errorf("ping-pong reader: %w", readErr)
		}
	}
}

// pingpongMemory runs ping-pong over net.Pipe, the in-memory byte stream the peers
// without a channel of their own use.
func pingpongMemory(tb testing.TB, c int) op {
	s, cl := net.Pipe()
	tb.Cleanup(func() { s.Close(); cl.Close() })
	go background("ping-pong server", func() error { return pingpongServe(s, s) })
	return pingpongClient(tb, stream{Reader: cl, WriteCloser: cl, closers: []io.Closer{cl}}, c)
}

func pingpongOSPipes(tb testing.TB, c int) op {
	client, server := osPipes(tb)
	go background("ping-pong server", func() error { return pingpongServe(server.Reader, server) })
	return pingpongClient(tb, client, c)
}

func pingpongStdio(tb testing.TB, c int) op {
	return pingpongClient(tb, startChild(tb, serverCommand(tb, "pingpong")), c)
}

// pingpongHTTP POSTs the request bytes to a handler that reads the body and writes
// the response bytes.
func pingpongHTTP(tb testing.TB, c int) op {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil || !bytes.Equal(body, pingRequest) {
			http.Error(w, "unexpected request", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(pingResponse)
	}))
	hc := httpClient(tb, srv)
	return func(int64, int) error {
		resp, err := hc.Post(srv.URL, "application/json", bytes.NewReader(pingRequest))
		if err != nil {
			return err
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return err
		}
		if resp.StatusCode != http.StatusOK || !bytes.Equal(body, pingResponse) {
			return fmt.Errorf("%w: %s %q", errPingMismatch, resp.Status, body)
		}
		return nil
	}
}

// The four messages of one call, as concrete structs, for the JSON floor.
type (
	floorRequest struct {
		JSONRPC string    `json:"jsonrpc"`
		ID      int64     `json:"id"`
		Method  string    `json:"method"`
		Params  addParams `json:"params"`
	}
	floorResponse struct {
		JSONRPC string `json:"jsonrpc"`
		ID      int64  `json:"id"`
		Result  int    `json:"result"`
	}
)

// floorOp is the JSON work of one call alone, with encoding/json: encode the request,
// decode it, encode the response, decode it.
func floorOp() op {
	return func(i int64, worker int) error {
		a, b := int(i), worker+1
		data, err := json.Marshal(floorRequest{JSONRPC: "2.0", ID: i, Method: "add", Params: addParams{A: a, B: b}})
		if err != nil {
			return err
		}
		var req floorRequest
		if err := json.Unmarshal(data, &req); err != nil {
			return err
		}
		data, err = json.Marshal(floorResponse{JSONRPC: "2.0", ID: req.ID, Result: req.Params.A + req.Params.B})
		if err != nil {
			return err
		}
		var resp floorResponse
		if err := json.Unmarshal(data, &resp); err != nil {
			return err
		}
		if resp.ID != i || resp.Result != a+b {
			return fmt.Errorf("floor: id %d sum %d, want id %d sum %d", resp.ID, resp.Result, i, a+b)
		}
		return nil
	}
}
