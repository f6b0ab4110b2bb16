package rpchttp_test

import (
	"context"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/runtime/rpchttp"
)

// TestPromptShutdown: a connection a client dialled and never used does not
// hold the http.Server.Shutdown of a JSON-RPC server. Without PromptShutdown,
// Go's server waits until such a connection is five seconds old, so the
// four-second context below ends first.
func TestPromptShutdown(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	fresh := make(chan struct{}, 1)
	hs := &http.Server{Handler: rpchttp.NewHandler(specHandler, rpchttp.Options{})}
	hs.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			fresh <- struct{}{}
		}
	}
	rpchttp.PromptShutdown(hs)
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()

	// One connection carries a call and stays idle; one is never used.
	client := rpchttp.NewClient("http://" + ln.Addr().String() + "/")
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	client.Client = &http.Client{Transport: tr}
	var diff int
	if err := client.Call(context.Background(), "subtract", []int{42, 23}, &diff); err != nil || diff != 19 {
		t.Fatalf("subtract: %d, %v; want 19", diff, err)
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
