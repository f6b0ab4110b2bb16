package httpguard

import (
	"context"
	"io"
	"net"
	"net/http"
	"testing"
	"testing/synctest"
	"time"
)

// TestPromptShutdown: a connection a client dialled and never used does not
// hold http.Server.Shutdown, and a hook the server had still runs. Without
// PromptShutdown, Go's server waits until such a connection is five seconds
// old, so the four-second context below ends first. (rpchttp's and
// mcphttp's PromptShutdown are this function: their tests check only that.)
func TestPromptShutdown(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	fresh := make(chan struct{}, 1)
	hs := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "ok")
	})}
	hs.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			fresh <- struct{}{}
		}
	}
	PromptShutdown(hs)
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()

	// One connection carries a request and stays idle; one is never used.
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Get("http://" + ln.Addr().String() + "/")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != "ok" {
		t.Fatalf("body %q, want ok", body)
	}
	<-fresh
	unused, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer unused.Close()
	<-fresh // the server holds it, in http.StateNew, and ran the hook set before

	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Second)
	defer cancel()
	if err := hs.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown: %v, want nil (the unused connection closed at once)", err)
	}
	if err := <-served; err != http.ErrServerClosed {
		t.Fatalf("Serve: %v, want http.ErrServerClosed", err)
	}
	if n, err := unused.Read(make([]byte, 1)); err == nil {
		t.Fatalf("the unused connection read %d bytes, want it closed", n)
	}
}

// TestPromptShutdownLateConn: a connection whose StateNew comes after
// Shutdown began (accepted just before the listener closed) is closed at
// once; one that began a request is left to Shutdown. (In a synctest
// bubble: a connection left open fails the test as a deadlock.)
func TestPromptShutdownLateConn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &freshConns{conns: make(map[net.Conn]struct{})}
		busy, busyPeer := net.Pipe()
		defer busyPeer.Close()
		f.note(busy, http.StateNew)
		f.note(busy, http.StateActive)
		f.closeAll()
		late, latePeer := net.Pipe()
		defer latePeer.Close()
		f.note(late, http.StateNew)
		if _, err := latePeer.Read(make([]byte, 1)); err != io.EOF {
			t.Errorf("late connection: read %v, want io.EOF (closed)", err)
		}
		go busyPeer.Write([]byte("x")) // read below, unless busy was closed
		if _, err := busy.Read(make([]byte, 1)); err != nil {
			t.Errorf("active connection: read %v, want it open", err)
		}
	})
}
