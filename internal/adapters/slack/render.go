package slack

import (
	"fmt"
	"strings"
	"unicode/utf8"

	slackapi "github.com/slack-go/slack"

	"github.com/threadbot/threadbot/internal/core/executor"
	"github.com/threadbot/threadbot/internal/core/session"
)

// Action and callback ids of the adapter's interactive elements.
const (
	actApprove = "threadbot_approve"
	actAlways  = "threadbot_always"
	actReject  = "threadbot_reject"
	actStop    = "threadbot_stop"
	// blockApproval is the block id of the approval buttons.
	blockApproval = "threadbot_approval"
	// cbReject is the callback id of the rejection-reason modal.
	cbReject = "threadbot_reject_reason"
	// reasonBlock and reasonAction identify the modal's text input.
	reasonBlock  = "reason"
	reasonAction = "reason"
)

// Slack's limits, with a margin.
const (
	// maxText is the most characters of one posted message's text; Slack
	// truncates at 40,000 but advises 4,000.
	maxText = 3900
	// maxSection is the most characters of a section block's text (3,000).
	maxSection = 2900
	// maxChunks is how many messages a long answer may take before it is
	// uploaded as a file instead.
	maxChunks = 4
)

// clip cuts s to at most n characters, marking the cut.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// neutralize escapes the < of every Slack special command (<!…>) in s but
// a date (<!date^…>), so that text from the model never pings a channel,
// a workspace or a user group, whatever form it takes (<!here^x>,
// <!group>, <!subteam^S1>): Slack shows it as written. It is an
// allow-list on purpose, and a backstop: toMrkdwn already writes such
// commands as text. User and channel mentions (<@U1>, <#C1>) stay.
func neutralize(s string) string {
	if !strings.Contains(s, "<!") {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, "<!")
		if i < 0 {
			break
		}
		b.WriteString(s[:i])
		if mdSlackSafe(s[i:]) {
			b.WriteString("<!")
		} else {
			b.WriteString("&lt;!")
		}
		s = s[i+2:]
	}
	b.WriteString(s)
	return b.String()
}

// mrkdwn is the adapter's conversion of runtime Markdown for Slack.
func mrkdwn(md string) string { return neutralize(toMrkdwn(md)) }

func section(text string) slackapi.Block {
	return slackapi.NewSectionBlock(slackapi.NewTextBlockObject(slackapi.MarkdownType, clip(text, maxSection), false, false), nil, nil)
}

func contextLine(text string) slackapi.Block {
	return slackapi.NewContextBlock("", slackapi.NewTextBlockObject(slackapi.MarkdownType, clip(text, maxSection), false, false))
}

func button(actionID, label, value string, style slackapi.Style) *slackapi.ButtonBlockElement {
	b := slackapi.NewButtonBlockElement(actionID, value, slackapi.NewTextBlockObject(slackapi.PlainTextType, label, true, false))
	if style != "" {
		b.Style = style
	}
	return b
}

// statusBlocks renders a turn's status line, with a Stop button while the
// turn runs. The button's value is the thread.
func statusBlocks(text string, stop bool, thread string) []slackapi.Block {
	blocks := []slackapi.Block{contextLine(text)}
	if stop {
		blocks = append(blocks, slackapi.NewActionBlock("threadbot_status", button(actStop, "Stop", thread, slackapi.StyleDanger)))
	}
	return blocks
}

// approvalSummary is the request's text: what the tool wants to do.
func approvalSummary(p session.ApprovalPrompt) string {
	var b strings.Builder
	switch p.Kind {
	case string(executor.KindResult):
		fmt.Fprintf(&b, ":eyes: *Approval needed:* show the model the result of `%s`", p.Tool)
	case string(executor.KindPermission):
		fmt.Fprintf(&b, ":unlock: *Permission needed* for `%s`", p.Tool)
		if p.Title != "" {
			fmt.Fprintf(&b, ": %s", escape(p.Title))
		}
	default:
		fmt.Fprintf(&b, ":raised_hand: *Approval needed:* run `%s`", p.Tool)
	}
	if args := strings.TrimSpace(p.Args); args != "" && args != "{}" {
		fmt.Fprintf(&b, "\n```%s```", escape(clip(strings.ReplaceAll(args, "```", "'''"), 1200)))
	}
	if d := strings.TrimSpace(p.Detail); d != "" {
		fmt.Fprintf(&b, "\n```%s```", escape(clip(strings.ReplaceAll(d, "```", "'''"), 1200)))
	}
	return b.String()
}

// approvalBlocks renders an open request with its buttons; every button
// carries the approval id.
func approvalBlocks(p session.ApprovalPrompt) []slackapi.Block {
	who := "the person who asked"
	if p.Requester != "" {
		who = "<@" + p.Requester + ">"
	}
	ctx := fmt.Sprintf("Requested for %s · only they or an admin can decide", who)
	if !p.Expires.IsZero() {
		ctx += fmt.Sprintf(" · expires <!date^%d^{time}|%s>", p.Expires.Unix(), p.Expires.UTC().Format("15:04 UTC"))
	}
	return []slackapi.Block{
		section(approvalSummary(p)),
		contextLine(ctx),
		slackapi.NewActionBlock(blockApproval,
			button(actApprove, "Approve", p.ID, slackapi.StylePrimary),
			button(actAlways, "Always in this thread", p.ID, ""),
			button(actReject, "Reject", p.ID, slackapi.StyleDanger),
		),
	}
}

// outcomeLine says how a request ended and who decided.
func outcomeLine(o session.Outcome) string {
	by := "the bot"
	if o.By != "" {
		by = "<@" + o.By + ">"
	}
	reason := ""
	if r := strings.TrimSpace(o.Reason); r != "" {
		reason = ": " + escape(clip(r, 500))
	}
	switch {
	case o.Expired:
		return ":hourglass: Expired" + reason
	case o.Approved && o.Always:
		return ":white_check_mark: Approved for this thread by " + by
	case o.Approved:
		return ":white_check_mark: Approved by " + by
	default:
		return ":x: Rejected by " + by + reason
	}
}

// resolvedBlocks renders a decided request: the summary and the outcome,
// no buttons.
func resolvedBlocks(p session.ApprovalPrompt, o session.Outcome) []slackapi.Block {
	return []slackapi.Block{section(approvalSummary(p)), contextLine(outcomeLine(o))}
}

// rejectModal asks for an optional reason; metadata identifies the
// approval and its thread.
func rejectModal(tool, metadata string) slackapi.ModalViewRequest {
	input := slackapi.NewPlainTextInputBlockElement(slackapi.NewTextBlockObject(slackapi.PlainTextType, "Tell the model why (optional)", false, false), reasonAction)
	input.Multiline = true
	input.MaxLength = 2000
	block := slackapi.NewInputBlock(reasonBlock, slackapi.NewTextBlockObject(slackapi.PlainTextType, "Reason", false, false), nil, input)
	block.Optional = true
	return slackapi.ModalViewRequest{
		Type:            slackapi.VTModal,
		CallbackID:      cbReject,
		PrivateMetadata: metadata,
		Title:           slackapi.NewTextBlockObject(slackapi.PlainTextType, "Reject", false, false),
		Submit:          slackapi.NewTextBlockObject(slackapi.PlainTextType, "Reject", false, false),
		Close:           slackapi.NewTextBlockObject(slackapi.PlainTextType, "Cancel", false, false),
		Blocks: slackapi.Blocks{BlockSet: []slackapi.Block{
			section(fmt.Sprintf("Reject `%s`?", clip(tool, 100))),
			block,
		}},
	}
}

// escape makes plain text safe inside mrkdwn.
func escape(s string) string { return escaper.Replace(s) }

var escaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")
