package sse_test

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/rpcgen/rpcgen/runtime/sse"
)

func ExampleReader() {
	stream := "id: s1-0\r\nretry: 1000\r\ndata:\r\n\r\n" + // a priming event
		": keep-alive\r\n\r\n" +
		"id: s1-1\r\nevent: message\r\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\r\n\r\n"
	r := sse.NewReader(strings.NewReader(stream))
	for {
		e, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			fmt.Println("error:", err)
			return
		}
		fmt.Printf("id=%q hasID=%v type=%q retry=%v data=%q\n", e.ID, e.HasID, e.Type, e.Retry, e.Data)
	}
	fmt.Println("resume with Last-Event-ID:", r.LastEventID(), "after", r.Retry())
	// Output:
	// id="s1-0" hasID=true type="" retry=1s data=""
	// id="s1-1" hasID=true type="message" retry=0s data="{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}"
	// resume with Last-Event-ID: s1-1 after 1s
}

func ExampleAppendEvent() {
	var b []byte
	b = sse.AppendEvent(b, sse.Event{ID: "s1-0", HasID: true, Retry: time.Second}) // priming
	b = sse.AppendEvent(b, sse.Event{ID: "s1-1", Type: "message", Data: `{"jsonrpc":"2.0","method":"ping"}`})
	b = sse.AppendComment(b, "keep-alive")
	b = sse.AppendEvent(b, sse.Event{Data: "two\nlines"})
	os.Stdout.Write(b)
	// Output:
	// id: s1-0
	// retry: 1000
	// data:
	//
	// id: s1-1
	// event: message
	// data: {"jsonrpc":"2.0","method":"ping"}
	//
	// : keep-alive
	//
	// data: two
	// data: lines
}
