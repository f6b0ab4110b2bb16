// Command floorserver is the cold-start floor: a minimal Go program that reads one
// line from stdin and writes one canned line back (the answer to a tools/list with id
// 2), then exits once stdin closes.
package main

import (
	"bufio"
	"io"
	"os"
)

const answer = `{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"add","inputSchema":{"type":"object"}}]}}` + "\n"

func main() {
	r := bufio.NewReader(os.Stdin)
	if _, err := r.ReadSlice('\n'); err != nil {
		os.Exit(1)
	}
	if _, err := io.WriteString(os.Stdout, answer); err != nil {
		os.Exit(1)
	}
	io.Copy(io.Discard, r)
}
