// Package slack is threadbot's Slack adapter, on github.com/slack-go/slack.
//
// A Slack thread is a session: (team, channel, thread_ts), where a mention
// at the top of a channel (or a top-level DM) opens a thread rooted at the
// person's message. The adapter answers app mentions, every message in a
// thread it has taken part in, and DMs; it ignores its own messages and,
// unless Options.AllowBots, other bots. A Slack message never runs two
// turns: its (channel, ts) is the event id the runtime deduplicates on, so
// a retried envelope, a reconnect redelivery or the app_mention and message
// events of one message all count once.
//
// Events arrive over Socket Mode (Options.AppToken; no public URL) or HTTP
// (Options.SigningSecret; Handler serves /slack/events,
// /slack/interactivity and /slack/commands with signatures and timestamps
// checked). Either way every envelope is acknowledged before any work, and
// the work runs afterwards: messages in arrival order, clicks and commands
// concurrently.
//
// Out of the runtime come: a status message per turn with a Stop button,
// one thread reply per tool call (posted at its start, edited at its end),
// the answer streamed by editing one message, converted from Markdown to
// mrkdwn and split or uploaded as a file when it is too long, and approval
// requests as Block Kit messages with Approve / Always in this thread /
// Reject (with an optional reason in a modal). Only the requester or an
// admin (THREADBOT_ADMINS, or a workspace admin or owner per users.info)
// may decide; anyone else gets an ephemeral refusal and nothing changes.
//
// Every Web API call goes through a limiter per method and channel that
// spaces calls and, on HTTP 429, waits for Retry-After and tries again, so
// nothing is lost when Slack limits the bot.
//
// The adapter implements session.Platform and chat.Source. It imports the
// core session and executor packages, the chat tool's Source types and
// slack-go; nothing imports it but cmd/bot.
package slack
