// Command taskcall is the Go side of ts/tasks.test.mjs: rpcgen's own MCP
// client (mcpclient over Streamable HTTP, 2026-07-28, declaring the Tasks
// extension) calls one tool that runs as a task, follows it to its end,
// answers each elicitation the task asks with -answer, and prints the
// tool's CallToolResult as JSON on stdout, for the test to compare with
// what @modelcontextprotocol/ext-tasks got for the same call.
//
//	taskcall -url http://127.0.0.1:PORT/mcp -tool compact -args '{"batches":4}' -answer '{"delete":true}'
//	taskcall ... -answer decline
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttpclient"
)

func main() {
	url := flag.String("url", "", "the server's Streamable HTTP endpoint")
	tool := flag.String("tool", "", "the tool to call")
	args := flag.String("args", "{}", "the tool's arguments, a JSON object")
	answer := flag.String("answer", "decline", `the answer to every elicitation: "decline", "cancel", or a JSON object to accept with`)
	flag.Parse()
	if err := run(*url, *tool, *args, *answer); err != nil {
		fmt.Fprintln(os.Stderr, "taskcall:", err)
		os.Exit(1)
	}
}

func run(url, tool, args, answer string) error {
	if url == "" || tool == "" {
		return fmt.Errorf("-url and -tool are required")
	}
	if !json.Valid([]byte(args)) {
		return fmt.Errorf("-args is not JSON: %s", args)
	}
	reply := &mcp.ElicitResult{Action: answer}
	if answer != "decline" && answer != "cancel" {
		if !json.Valid([]byte(answer)) {
			return fmt.Errorf(`-answer is neither "decline", "cancel" nor JSON: %s`, answer)
		}
		reply = &mcp.ElicitResult{Action: "accept", Content: json.RawMessage(answer)}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	c, err := mcpclient.ConnectTransport(ctx, mcphttpclient.NewStreamableTransport(url, nil), mcpclient.Options{
		ProtocolVersion: mcp.Version20260728,
		Extensions:      []mcp.Extension{{ID: mcp.TasksExtensionID}},
		OnElicit: func(context.Context, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			return reply, nil
		},
	})
	if err != nil {
		return err
	}
	defer c.Close()
	res, err := c.CallToolRaw(ctx, mcp.CallToolParams{Name: tool, Arguments: json.RawMessage(args)})
	if err != nil {
		return err
	}
	return json.NewEncoder(os.Stdout).Encode(res)
}
