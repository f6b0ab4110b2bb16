// Command api-service is the public benchmark's product catalog API
// (package apiservice), listening on -addr (default :8100).
package main

import (
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"time"

	"github.com/rpcgen/rpcgen/bench/public/apiservice"
)

func main() {
	addr := flag.String("addr", ":8100", "listen address")
	flag.Parse()
	h := apiservice.NewCatalog().Handler()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("listening on %s\n", ln.Addr())
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	log.Fatal(srv.Serve(ln))
}
