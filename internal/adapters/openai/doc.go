// Package openai is the model client: it implements the core's Model
// interface (Complete) on github.com/sashabaranov/go-openai, against OpenAI or
// any OpenAI-compatible chat-completions endpoint.
//
// It owns the translation between the core's provider-neutral types
// (internal/core/llm) and the wire protocol, the assembly of streamed text and
// tool-call deltas, retries with backoff, and per-attempt timeouts. It imports
// core/llm and go-openai only — never another core package, never another
// adapter.
//
// Decisions worth knowing:
//
//   - Every request streams ("stream": true with
//     "stream_options": {"include_usage": true}), so text reaches the caller
//     as it is written and usage arrives in the last chunk.
//   - Tool-call deltas are matched by their index; when a server omits the
//     index, by the call id; when both are missing, the fragment belongs to
//     the call seen last. Names are assigned, arguments concatenated. A call
//     that never got an id is given "call_<index>" so that the tool message
//     answering it can refer to it.
//   - Temperature: nil means the provider default and is not sent. go-openai
//     drops an explicit 0 (omitempty), and 0 is a real choice (as
//     deterministic as the provider allows), so the client inserts
//     "temperature":0 into the request body itself rather than sending a
//     tiny epsilon that only approximates it.
//   - Max tokens go out as max_completion_tokens, the field OpenAI's current
//     models require; Options.LegacyMaxTokens sends max_tokens instead for
//     older OpenAI-compatible servers.
//   - Retries: 408, 429, 5xx, connection failures and attempt timeouts are
//     retried with exponential backoff and jitter, or after the server's
//     Retry-After (retry-after-ms, seconds or an HTTP date), capped by
//     MaxBackoff. Other 4xx statuses and malformed streams are not. Once a
//     delta has been passed to onDelta, nothing is retried: the caller has
//     already shown part of an answer, and a second attempt would show a
//     different one.
//   - RequestTimeout bounds a whole attempt, stream included.
//   - Logs carry the base URL's host, the model, the attempt, the status and
//     the duration — never the API key, never prompt text.
package openai
