// Command echoserver is a tiny stdio MCP server for the mcp package's
// tests. Its tools: echo (returns text), add (adds two numbers), fail (an
// isError result), pid (its process id), env (its environment) and crash
// (exits mid-call).
//
// With -stubborn it ignores SIGTERM and keeps running after its stdin
// closes, so the tests can check that Close kills it.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type echoArgs struct {
	Text string `json:"text" jsonschema:"the text to echo"`
}

type addArgs struct {
	A float64 `json:"a" jsonschema:"the first number"`
	B float64 `json:"b" jsonschema:"the second number"`
}

type noArgs struct{}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

func main() {
	stubborn := flag.Bool("stubborn", false, "ignore SIGTERM and stdin EOF")
	flag.Parse()
	fmt.Fprintln(os.Stderr, "echoserver starting")

	s := mcp.NewServer(&mcp.Implementation{Name: "echoserver", Version: "v1"}, &mcp.ServerOptions{PageSize: 2})
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echo the text back."},
		func(_ context.Context, _ *mcp.CallToolRequest, in echoArgs) (*mcp.CallToolResult, any, error) {
			return text(in.Text), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "add", Description: "Add two numbers."},
		func(_ context.Context, _ *mcp.CallToolRequest, in addArgs) (*mcp.CallToolResult, any, error) {
			return text(strconv.FormatFloat(in.A+in.B, 'f', -1, 64)), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "fail", Description: "Always fails."},
		func(_ context.Context, _ *mcp.CallToolRequest, _ noArgs) (*mcp.CallToolResult, any, error) {
			return nil, nil, errors.New("this tool always fails")
		})
	mcp.AddTool(s, &mcp.Tool{Name: "pid", Description: "Report the process id."},
		func(_ context.Context, _ *mcp.CallToolRequest, _ noArgs) (*mcp.CallToolResult, any, error) {
			return text(strconv.Itoa(os.Getpid())), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "env", Description: "List the environment."},
		func(_ context.Context, _ *mcp.CallToolRequest, _ noArgs) (*mcp.CallToolResult, any, error) {
			env := os.Environ()
			slices.Sort(env)
			return text(strings.Join(env, "\n")), nil, nil
		})

	mcp.AddTool(s, &mcp.Tool{Name: "crash", Description: "Exit without answering."},
		func(_ context.Context, _ *mcp.CallToolRequest, _ noArgs) (*mcp.CallToolResult, any, error) {
			os.Exit(2)
			return nil, nil, nil
		})

	if *stubborn {
		signal.Ignore(syscall.SIGTERM)
	}
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Printf("echoserver: %v", err)
	}
	if *stubborn {
		time.Sleep(time.Hour)
	}
}
