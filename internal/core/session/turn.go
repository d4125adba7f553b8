package session

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/threadbot/threadbot/internal/core/chain"
	"github.com/threadbot/threadbot/internal/core/executor"
	"github.com/threadbot/threadbot/internal/core/llm"
)

//go:embed prompts/system.md
var defaultSystemPrompt string

// turn is the state of one running turn.
type turn struct {
	m   *Manager
	p   Platform
	s   *session
	ctx context.Context // for platform calls: not cancelled by Stop

	env       envelope
	statusRef Ref
	logs      map[string]Ref
	lastEdit  map[string]time.Time
	stream    *streamer
	lastCP    *chain.Checkpoint
	// callDecisions are the decisions taken so far for the running call,
	// kept in the checkpoint so a resumed call is not asked twice.
	callDecisions map[string]executor.Decision
	preDecided    map[string]executor.Decision // kind -> decision for the resumed call
	resumedCall   string
	resumed       bool // the turn resumes after an approval
	// resumedApproval is the stored approval (of kind resumedKind) whose
	// decision the resumed call uses; consumed when it does.
	resumedApproval, resumedKind string
	pendingIDs                   []string
	suspended                    bool
	// acted is set once the turn called a tool: from then on a rerun
	// could repeat what it did.
	acted   bool
	audit   []AuditEntry
	started time.Time
}

// envelope is what a pending approval stores to resume its turn.
type envelope struct {
	Chain        *chain.Checkpoint            `json:"chain"`
	User         string                       `json:"user"`
	UserText     string                       `json:"userText"`
	EventID      string                       `json:"eventId,omitempty"`
	MessageID    string                       `json:"messageId"`
	StatusRef    Ref                          `json:"statusRef,omitempty"`
	Started      time.Time                    `json:"started"`
	Decisions    map[string]executor.Decision `json:"decisions,omitempty"` // kind -> decision, for Chain's awaiting call
	AwaitingKind string                       `json:"awaitingKind,omitempty"`
}

func (m *Manager) newTurn(ctx context.Context, p Platform, s *session, env envelope) *turn {
	pctx := context.WithoutCancel(ctx)
	return &turn{
		m: m, p: p, s: s, ctx: pctx, env: env,
		statusRef:     env.StatusRef,
		logs:          map[string]Ref{},
		lastEdit:      map[string]time.Time{},
		callDecisions: map[string]executor.Decision{},
		preDecided:    map[string]executor.Decision{},
		started:       m.opts.Now(),
		stream:        &streamer{ctx: pctx, lg: m.lg, p: p, key: s.key, interval: m.opts.EditInterval},
	}
}

// runJob runs one queued job of a session.
func (m *Manager) runJob(ctx context.Context, s *session, j job) {
	key := s.key
	lg := m.lg.With("platform", key.Platform, "channel", key.Channel, "thread", key.Thread)
	if j.msg != nil {
		defer m.doneEvent(*j.msg)
	}
	p, err := m.platform(key.Platform)
	if err != nil {
		lg.Error("run turn", "err", err)
		return
	}
	if err := m.load(ctx, s); err != nil {
		if errors.Is(context.Cause(ctx), ErrShutdown) {
			return // the message stays stored and runs after the restart
		}
		lg.Error("run turn", "err", err)
		_, _ = p.Post(context.WithoutCancel(ctx), key, Out{Kind: OutNotice, Text: "⚠️ Sorry, I could not load this conversation. Please try again in a moment."})
		if j.msg != nil && j.msg.EventID != "" {
			// The person was told to try again: do not also replay it.
			m.dropInbound(context.WithoutCancel(ctx), *j.msg)
		}
		return
	}
	if err := m.applySettings(ctx, key, s.x); err != nil {
		lg.Warn("apply tool settings", "err", err)
	}
	if j.msg != nil {
		m.runMessage(ctx, p, s, *j.msg)
		return
	}
	m.runResume(ctx, p, s, j.resume)
}

func (m *Manager) runMessage(ctx context.Context, p Platform, s *session, in Inbound) {
	m.mu.Lock()
	s.requester, s.event = in.User, in.EventID
	m.mu.Unlock()
	cs := m.opts.Channel(s.key)
	// History is read before the placeholder is posted (seed 002).
	msgs := m.contextMessages(s, cs, in.Text)
	t := m.newTurn(ctx, p, s, envelope{User: in.User, UserText: in.Text, EventID: in.EventID, MessageID: newID()})
	t.env.Started = t.started
	ref, err := p.Post(t.ctx, s.key, Out{Kind: OutStatus, Text: "⏳ Working…", Stop: true})
	if err != nil {
		m.lg.Warn("post status", "err", err)
	}
	t.statusRef, t.env.StatusRef = ref, ref
	if in.EventID != "" {
		if err := m.store.StartInbound(t.ctx, in.Key.Platform, in.EventID, ref); err != nil && !errors.Is(err, ErrNotFound) {
			m.lg.Warn("mark inbound message started", "event", in.EventID, "err", err)
		}
	}
	s.x.SetApprover(t)
	res, err := chain.Turn(ctx, m.model, s.x, t.chainOptions(cs, msgs))
	t.finish(ctx, res, err, in.Key.Platform)
}

func (m *Manager) runResume(ctx context.Context, p Platform, s *session, rj *resumeJob) {
	var env envelope
	if err := json.Unmarshal(rj.pending.Checkpoint, &env); err != nil || env.Chain == nil {
		m.lg.Error("resume turn: bad checkpoint", "approval", rj.pending.ID, "err", err)
		_, _ = p.Post(context.WithoutCancel(ctx), s.key, Out{Kind: OutNotice, Text: "⚠️ Sorry, I could not resume that request after a restart. Please ask again."})
		return
	}
	m.mu.Lock()
	s.requester, s.event = env.User, env.EventID
	m.mu.Unlock()
	t := m.newTurn(ctx, p, s, env)
	if env.Started.IsZero() {
		t.env.Started = t.started
	}
	for k, d := range env.Decisions {
		t.preDecided[k] = d
	}
	t.preDecided[rj.pending.Kind] = rj.decision
	if call, ok := env.Chain.Awaiting(); ok {
		t.resumedCall = call.ID
	}
	t.pendingIDs = append(t.pendingIDs, rj.pending.ID)
	t.resumed = true
	t.resumedApproval, t.resumedKind = rj.pending.ID, rj.pending.Kind
	if t.statusRef != "" {
		_ = p.Edit(t.ctx, s.key, t.statusRef, Out{Kind: OutStatus, Text: "⏳ Working… (resumed)", Stop: true})
	}
	s.x.SetApprover(t)
	res, err := chain.Resume(ctx, m.model, s.x, env.Chain, t.chainOptions(m.opts.Channel(s.key), nil))
	t.finish(ctx, res, err, s.key.Platform)
}

// contextMessages builds the request context: system prompt with the tool
// rules, stored history, and the new user message.
func (m *Manager) contextMessages(s *session, cs ChannelSettings, text string) []llm.Message {
	prompt := strings.TrimSpace(cs.SystemPrompt)
	if prompt == "" {
		prompt = strings.TrimSpace(defaultSystemPrompt)
	}
	if rules := s.x.ToolRules(); rules != "" {
		prompt += "\n\n" + rules
	}
	msgs := []llm.Message{{Role: llm.RoleSystem, Content: prompt}}
	for _, h := range s.history {
		if cs.History == HistoryNative && h.Role == llm.RoleAssistant && len(h.Native) > 0 {
			var native []llm.Message
			if err := json.Unmarshal(h.Native, &native); err == nil && len(native) > 0 {
				msgs = append(msgs, native...)
				continue
			}
		}
		msgs = append(msgs, llm.Message{Role: h.Role, Content: h.Content})
	}
	return append(msgs, llm.Message{Role: llm.RoleUser, Content: text})
}

func (t *turn) chainOptions(cs ChannelSettings, msgs []llm.Message) chain.Options {
	return chain.Options{
		Request:   t.m.opts.Request,
		Context:   msgs,
		MaxRounds: cs.MaxRounds,
		MessageID: t.env.MessageID,
		Requester: t.env.User,
		Now:       t.m.opts.Now,
		Callbacks: chain.Callbacks{
			OnToolCallStart:    t.onStart,
			OnToolCallComplete: t.onComplete,
			OnProgress:         t.onProgress,
			OnText:             t.stream.write,
			OnCheckpoint: func(cp *chain.Checkpoint) {
				t.lastCP = cp
				if call, ok := cp.Awaiting(); !ok || call.ID != t.resumedCall {
					clear(t.preDecided)
				}
				clear(t.callDecisions)
			},
		},
	}
}

func (t *turn) onStart(call llm.ToolCall, args map[string]any) {
	if !t.acted && t.env.EventID != "" {
		t.acted = true
		if err := t.m.store.ActedInbound(t.ctx, t.s.key.Platform, t.env.EventID); err != nil && !errors.Is(err, ErrNotFound) {
			t.m.lg.Warn("mark inbound message acted", "event", t.env.EventID, "err", err)
		}
	}
	t.stream.cut()
	ref, err := t.p.Post(t.ctx, t.s.key, Out{Kind: OutToolLog, Text: logLine(call.Name, args, call.Arguments, "⏳ running…", "")})
	if err != nil {
		t.m.lg.Warn("post tool log", "tool", call.Name, "err", err)
		return
	}
	t.logs[call.ID] = ref
}

func (t *turn) onProgress(callID, title string, _ map[string]any) {
	ref, ok := t.logs[callID]
	if !ok || time.Since(t.lastEdit[callID]) < t.m.opts.EditInterval {
		return
	}
	t.lastEdit[callID] = time.Now()
	_ = t.p.Edit(t.ctx, t.s.key, ref, Out{Kind: OutToolLog, Text: "⏳ " + title})
}

func (t *turn) onComplete(rec chain.CallRecord) {
	r := rec.Result
	status := chain.StatusLine(r.Status)
	if rec.End.Sub(rec.Start) > 0 {
		status += fmt.Sprintf(" · %s", rec.End.Sub(rec.Start).Round(time.Millisecond))
	}
	preview := chain.Preview(r.Text)
	if r.Status.Rejected() {
		preview = r.RejectReason
	}
	text := logLine(rec.Tool, rec.Args, rec.RawArgs, status, preview)
	if ref, ok := t.logs[rec.CallID]; ok {
		if err := t.p.Edit(t.ctx, t.s.key, ref, Out{Kind: OutToolLog, Text: text, Final: true}); err != nil {
			t.m.lg.Warn("edit tool log", "tool", rec.Tool, "err", err)
		}
	}
	for _, a := range r.Attachments {
		if err := t.p.Upload(t.ctx, t.s.key, File{Name: a.Name, Title: a.Name, MIMEType: a.MIMEType, Data: a.Data}); err != nil {
			t.m.lg.Warn("upload attachment", "tool", rec.Tool, "file", a.Name, "err", err)
		}
	}
	t.m.opts.Metrics.ToolCall(rec.Tool, string(r.Status), r.Duration)
	t.audit = append(t.audit, AuditEntry{
		Kind: "tool_call", Tool: rec.Tool, CallID: rec.CallID, Status: string(r.Status),
		Actor: t.env.User, Detail: executor.CompressArgs(rec.Args), Duration: r.Duration, At: rec.End,
	})
	for _, d := range r.Decisions {
		t.audit = append(t.audit, decisionAudit(rec.Tool, rec.CallID, d, rec.End))
	}
}

func decisionAudit(tool, callID string, d executor.Decision, at time.Time) AuditEntry {
	status := "rejected"
	if d.Approved {
		status = "approved"
	}
	return AuditEntry{Kind: "decision", Tool: tool, CallID: callID, Status: status, Actor: d.By, Detail: d.Reason, At: at}
}

// logLine renders one tool-log entry in Markdown.
func logLine(tool string, args map[string]any, raw, status, preview string) string {
	a := raw
	if args != nil {
		a = executor.CompressArgs(args)
	}
	if len(a) > 300 {
		a = a[:300] + "…"
	}
	line := fmt.Sprintf("🔧 **%s** `%s` — %s", tool, strings.ReplaceAll(a, "`", "'"), status)
	if preview = strings.TrimSpace(preview); preview != "" {
		line += "\n```\n" + strings.ReplaceAll(preview, "```", "'''") + "\n```"
	}
	return line
}

// finish stores the turn and shows its end in the thread.
func (t *turn) finish(ctx context.Context, res *chain.Result, err error, platform string) {
	m, s := t.m, t.s
	lg := m.lg.With("platform", s.key.Platform, "channel", s.key.Channel, "thread", s.key.Thread)
	if errors.Is(context.Cause(ctx), ErrShutdown) && t.suspended {
		// The approval stays stored; the turn resumes after the restart.
		lg.Info("turn suspended for restart")
		return
	}
	if errors.Is(context.Cause(ctx), ErrShutdown) && !t.acted && !t.resumed && t.env.EventID != "" {
		// Nothing happened that a rerun would repeat: the message stays
		// in the inbox and is answered after the restart.
		lg.Info("turn paused for restart; it runs again after the restart")
		t.stream.abandon("…\n\n_(interrupted by a restart)_")
		if t.statusRef != "" {
			_ = t.p.Edit(t.ctx, s.key, t.statusRef, Out{Kind: OutStatus, Text: "⏸ Paused: the bot is restarting; I will answer after the restart", Final: true})
		}
		return
	}
	if err != nil {
		lg.Error("turn failed", "err", err)
	}
	final := res.Final
	var statusText string
	switch res.Status {
	case chain.StatusCompleted:
		statusText = fmt.Sprintf("✅ Done · %d tool calls · %s", res.Stats.Calls, m.opts.Now().Sub(t.env.Started).Round(100*time.Millisecond))
		if strings.TrimSpace(final) == "" {
			final = "_(The model returned no answer.)_"
		}
	case chain.StatusAborted:
		statusText = "⏹ Stopped"
		if errors.Is(context.Cause(ctx), ErrShutdown) {
			statusText = "⏹ Stopped: the bot is restarting"
		}
	case chain.StatusTimeout:
		statusText = "⚠️ The model did not answer in time. Please try again."
	default:
		statusText = "⚠️ Sorry, the model request failed. Please try again in a moment."
	}
	if res.Usage.TotalTokens > 0 {
		statusText += fmt.Sprintf(" · %d tokens", res.Usage.TotalTokens)
	}
	content := res.Content()
	if final != res.Final {
		content += "\n\n" + final
	}
	chainJSON, _ := json.Marshal(res)
	nativeJSON, _ := json.Marshal(res.Messages.ToolChain)
	now := m.opts.Now()
	user := StoredMessage{Role: llm.RoleUser, Content: t.env.UserText, Created: t.env.Started}
	asst := StoredMessage{
		Role: llm.RoleAssistant, Content: content, HintSize: res.HintSize(),
		Chain: chainJSON, Native: nativeJSON, Usage: res.Usage,
		TokensSent: sentTokens(res), Created: now,
	}
	ups, removed := s.x.Vars().TakeChanges()
	rec := TurnRecord{
		SessionID: s.id, Messages: []StoredMessage{user, asst},
		VarUpserts: ups, VarRemoved: removed, Audit: t.audit,
		Decisions: s.x.RememberedDecisions(), ResolvePending: t.pendingIDs,
	}
	if t.env.EventID != "" {
		rec.EventPlatform, rec.EventID = platform, t.env.EventID
	}
	serr := m.store.SaveTurn(t.ctx, rec)
	switch {
	case errors.Is(serr, ErrDuplicateEvent):
		lg.Info("turn already stored for this event; not answering twice", "event", t.env.EventID)
		for _, id := range t.pendingIDs {
			m.consume(t.ctx, id) // else a decided one would resume at every start
		}
		return
	case serr != nil:
		lg.Error("store turn", "err", serr)
		statusText += " · ⚠️ not saved"
		if t.env.EventID != "" {
			// Answered, if not stored: not to be answered again at a restart.
			m.dropInbound(t.ctx, Inbound{Key: s.key, EventID: t.env.EventID})
		}
	}
	s.history = append(s.history, user, asst)
	if over := len(s.history) - m.opts.HistoryLimit; over > 0 {
		s.history = s.history[over:]
	}
	t.stream.finish(final)
	if t.statusRef != "" {
		if err := t.p.Edit(t.ctx, s.key, t.statusRef, Out{Kind: OutStatus, Text: statusText, Final: true}); err != nil {
			lg.Warn("edit status", "err", err)
		}
	}
	m.opts.Metrics.Turn(s.key.Platform, string(res.Status), m.opts.Now().Sub(t.started))
}

// sentTokens is the prompt tokens of the turn as the provider counted them,
// else an estimate of four characters a token.
func sentTokens(res *chain.Result) int {
	if res.Usage.PromptTokens > 0 {
		return res.Usage.PromptTokens
	}
	n := 0
	for _, m := range res.Messages.Context {
		n += len(m.Content)
	}
	return n / 4
}
