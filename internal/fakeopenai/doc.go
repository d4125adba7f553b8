// Package fakeopenai is a scripted, OpenAI-compatible chat-completions server
// for tests, on httptest at 127.0.0.1.
//
// It speaks the wire protocol rather than sharing types with any client: a
// POST to /v1/chat/completions gets either a JSON chat.completion object or,
// when the request says "stream": true, real server-sent events — content
// split over several chunks, each tool call split across chunks (the first
// carries index, id, type and name; later ones only index and an argument
// fragment), a usage chunk when stream_options.include_usage is set, and
// "data: [DONE]". GET /v1/models lists the configured model ids.
//
// A test enqueues replies with Server.Reply, or installs a Handler for replies
// that depend on the request (a model that calls a tool until it sees the
// tool's result, say). Every request is recorded, decoded, for assertions.
//
//	srv := fakeopenai.New(t)
//	srv.Reply(fakeopenai.Response{ToolCalls: []fakeopenai.ToolCall{{Name: "ReadVar", Arguments: `{"name":"x"}`}}})
//	srv.Reply(fakeopenai.Response{Content: "done"})
//	// point the client under test at srv.URL() ...
//	got := srv.Requests()
//
// Responses can also fail (an HTTP status with OpenAI's error JSON and an
// optional Retry-After), hang until the client gives up, drop the connection
// mid-stream, or send a raw body, so retry and error paths can be tested.
//
// The package imports only the standard library (and testing), so any
// package's tests can use it without pulling in a provider SDK. It is not a
// test-only file because tests of other packages import it.
package fakeopenai
