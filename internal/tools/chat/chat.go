package chat

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/threadbot/threadbot/internal/core/executor"
)

// Group and tool names.
const (
	GroupName         = "chat"
	ToolThreadHistory = "thread_history"
	ToolChannelSearch = "channel_search"
)

// Limits of the limit arguments.
const (
	DefaultHistoryLimit = 50
	MaxHistoryLimit     = 200
	DefaultSearchLimit  = 20
	MaxSearchLimit      = 50
)

//go:embed rules.md
var rules string

// Group returns the chat group: thread_history and channel_search, both
// with policy auto, reading through src (typically a *Mux). The tools keep
// no state, so one group serves every session.
func Group(src Source) *executor.Group {
	return &executor.Group{
		Name:  GroupName,
		Tools: []*executor.Tool{historyTool(src), searchTool(src)},
		Rules: strings.TrimSpace(rules),
	}
}

func historyTool(src Source) *executor.Tool {
	return &executor.Tool{
		Name: ToolThreadHistory,
		Description: "Read earlier messages of the current thread that you were not sent, oldest first, " +
			"one per line with time (UTC) and author. Use it when the user refers to something said before in this thread.",
		Parameters: json.RawMessage(fmt.Sprintf(`{
  "type": "object",
  "properties": {
    "limit": {"type": "integer", "minimum": 1, "maximum": %d, "default": %d,
      "description": "How many of the most recent earlier messages to read."}
  },
  "additionalProperties": false
}`, MaxHistoryLimit, DefaultHistoryLimit)),
		Permission: executor.Permission{Execution: executor.Auto, Result: executor.Never},
		Run: func(ctx context.Context, call executor.Call, args map[string]any) (executor.Output, error) {
			limit := intArg(args, "limit", DefaultHistoryLimit)
			msgs, err := read(src, opThread, func(s Source) ([]Message, error) {
				return s.ThreadMessages(ctx, call.SessionID, limit)
			})
			if err != nil {
				return executor.Output{}, err
			}
			if len(msgs) > limit {
				msgs = msgs[len(msgs)-limit:]
			}
			return executor.Output{
				Title: fmt.Sprintf("Read %d earlier messages", len(msgs)),
				Data: listing{
					header:   fmt.Sprintf("%d earlier messages of this thread, oldest first (times UTC):", len(msgs)),
					empty:    "This thread has no earlier messages.",
					messages: msgs,
					newest:   true,
				},
			}, nil
		},
		Format: format,
	}
}

func searchTool(src Source) *executor.Tool {
	return &executor.Tool{
		Name: ToolChannelSearch,
		Description: "Search the messages of the current channel (or workspace, depending on the platform) for words, " +
			"best match first, one per line with time (UTC), author and link. Use it to find what was said outside this thread.",
		Parameters: json.RawMessage(fmt.Sprintf(`{
  "type": "object",
  "properties": {
    "query": {"type": "string", "minLength": 1, "description": "The words to search for."},
    "limit": {"type": "integer", "minimum": 1, "maximum": %d, "default": %d,
      "description": "How many matches to return at most."}
  },
  "required": ["query"],
  "additionalProperties": false
}`, MaxSearchLimit, DefaultSearchLimit)),
		Permission: executor.Permission{Execution: executor.Auto, Result: executor.Never},
		Run: func(ctx context.Context, call executor.Call, args map[string]any) (executor.Output, error) {
			query, _ := args["query"].(string)
			query = strings.TrimSpace(query)
			if query == "" {
				return executor.Output{}, errors.New("query is empty: pass the words to search for")
			}
			limit := intArg(args, "limit", DefaultSearchLimit)
			msgs, err := read(src, opSearch, func(s Source) ([]Message, error) {
				return s.SearchChannel(ctx, call.SessionID, query, limit)
			})
			if err != nil {
				return executor.Output{}, err
			}
			msgs = msgs[:min(len(msgs), limit)]
			return executor.Output{
				Title: fmt.Sprintf("Searched for %q: %d matches", query, len(msgs)),
				Data: listing{
					header:   fmt.Sprintf("%d messages match %q, best first (times UTC):", len(msgs), query),
					empty:    fmt.Sprintf("No messages match %q. Try other or fewer words.", query),
					messages: msgs,
					links:    true,
				},
			}, nil
		},
		Format: format,
	}
}

// read calls the source and turns its error into one the model can act on.
func read(src Source, op string, f func(Source) ([]Message, error)) ([]Message, error) {
	if src == nil {
		return nil, fmt.Errorf("%s is not available here; answer from the messages you have", op)
	}
	msgs, err := f(src)
	switch {
	case err == nil:
		return msgs, nil
	case errors.Is(err, ErrUnsupported):
		return nil, fmt.Errorf("%w; answer from the messages you have and do not call this tool again", err)
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return nil, fmt.Errorf("%s stopped: %w", op, err)
	}
	return nil, fmt.Errorf("%s failed: %w; try again once, otherwise answer from the messages you have", op, err)
}

// format renders a listing; other data (never produced) falls back to %v.
func format(out executor.Output, _ map[string]any) string {
	if l, ok := out.Data.(listing); ok {
		return l.String()
	}
	return fmt.Sprint(out.Data)
}

// intArg reads an integer argument, or def when it is absent.
func intArg(args map[string]any, name string, def int) int {
	switch v := args[name].(type) {
	case float64:
		return int(v)
	case int:
		return v
	case int64:
		return int(v)
	case json.Number:
		if n, err := v.Int64(); err == nil {
			return int(n)
		}
	}
	return def
}
