// Package fakeslack is a purpose-built fake Slack for tests, on httptest at
// 127.0.0.1. It speaks the wire protocols, so the real
// github.com/slack-go/slack client and its socketmode package run against it
// unchanged:
//
//   - the Web API under APIURL (form-encoded or JSON bodies, the token as a
//     form field or a Bearer header, {"ok":false,"error":...} envelopes,
//     HTTP 429 with Retry-After for injected rate limits);
//   - Socket Mode: apps.connections.open hands out a ws:// URL on the same
//     server; the websocket says hello, pings every 500ms, carries
//     envelopes from Send and records the client's acks;
//   - file upload v2: files.getUploadURLExternal returns an upload URL on the
//     same server (slack-go only sends its token to the API host), the upload
//     handler takes the bytes, files.completeUploadExternal shares them into
//     a thread as a message;
//   - response_url endpoints that record what is posted to them.
//
// The server keeps a small message store: chat.postMessage, chat.update,
// chat.delete and reactions.add change it, conversations.replies and
// conversations.history read it, and tests seed it with AddMessage. Block
// Kit payloads are checked against Slack's main size limits (50 blocks, 3000
// characters of section text, ...) and rejected with invalid_blocks the way
// Slack rejects them, so rendering bugs show up in tests.
//
// A typical Socket Mode test:
//
//	srv := fakeslack.New(fakeslack.Options{Logf: t.Logf})
//	t.Cleanup(srv.Close)
//	api := slack.New(fakeslack.DefaultBotToken, slack.OptionAPIURL(srv.APIURL()),
//		slack.OptionAppLevelToken(fakeslack.DefaultAppToken))
//	// start the adapter under test with api ...
//	srv.WaitConnections(t, 1)
//	ts := srv.AddMessage(fakeslack.Message{Channel: "C1", User: "U1", Text: "<@UBOT> hi"})
//	env := srv.Send("events_api", srv.EventCallback("", srv.AppMention("C1", "U1", "<@UBOT> hi", ts, "")), 0)
//	srv.WaitAck(t, env)
//	fakeslack.Eventually(t, "a reply in the thread", func() bool { return len(srv.Thread("C1", ts)) == 2 })
//
// Every Web API call is recorded (Calls), and the store, ephemeral messages,
// views, files, response_url posts and acks can all be read back. All
// methods are safe for concurrent use.
//
// The package imports the standard library, testing and
// github.com/gorilla/websocket; it does not import slack-go, so the fake is
// shaped by the protocol rather than by one client's types. It is not a
// test-only file because the adapter's tests import it.
package fakeslack
