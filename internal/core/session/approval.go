package session

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/threadbot/threadbot/internal/core/chain"
	"github.com/threadbot/threadbot/internal/core/executor"
)

// waiter is a turn waiting for a person's decision.
type waiter struct {
	id        string
	key       Key
	requester string
	ref       Ref
	prompt    ApprovalPrompt
	ch        chan executor.Decision // buffered; Decide sends once
}

func newID() string {
	var b [10]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Approve implements executor.Approver for the turn: it posts the request
// in the thread, stores it with the turn's checkpoint, and waits for
// Decide, the approval timeout, or the turn's end.
func (t *turn) Approve(ctx context.Context, req executor.ApprovalRequest) (executor.Decision, error) {
	kind := string(req.Kind)
	if d, ok := t.preDecided[kind]; ok && req.CallID == t.resumedCall {
		delete(t.preDecided, kind)
		t.callDecisions[kind] = d
		if kind == t.resumedKind && t.resumedApproval != "" {
			t.m.consume(t.ctx, t.resumedApproval)
			t.resumedApproval = ""
		}
		return d, nil
	}
	d := t.m.wait(ctx, t, req)
	t.callDecisions[kind] = d
	return d, nil
}

func (m *Manager) wait(ctx context.Context, t *turn, req executor.ApprovalRequest) executor.Decision {
	s := t.s
	lg := m.lg.With("platform", s.key.Platform, "channel", s.key.Channel, "thread", s.key.Thread, "tool", req.Tool)
	start := m.opts.Now()
	prompt := ApprovalPrompt{
		ID: newID(), Kind: string(req.Kind), Tool: req.Tool, Args: req.ArgsSummary,
		Title: req.Title, Detail: chain.Preview(req.Result), Requester: t.env.User,
		Expires: start.Add(m.opts.ApprovalTimeout),
	}
	// The waiter exists before the request is visible, so no click can
	// miss it.
	w := &waiter{id: prompt.ID, key: s.key, requester: t.env.User, prompt: prompt, ch: make(chan executor.Decision, 1)}
	m.mu.Lock()
	m.waiters[w.id] = w
	m.mu.Unlock()
	defer func() {
		m.mu.Lock()
		delete(m.waiters, w.id)
		m.mu.Unlock()
	}()
	// Stored before it is shown, so a click (or a crash) right after the
	// request appears finds it; stored again with the message reference.
	env := t.env
	env.Chain = t.lastCP
	env.Decisions = maps(t.callDecisions)
	env.AwaitingKind = string(req.Kind)
	cp, err := json.Marshal(env)
	if err != nil {
		lg.Error("encode checkpoint", "err", err)
	}
	ups, removed := s.x.Vars().TakeChanges()
	p := Pending{
		ID: w.id, Key: s.key, SessionID: s.id, CallID: req.CallID, Tool: req.Tool, Kind: string(req.Kind),
		ArgsSummary: req.ArgsSummary, Requester: t.env.User, Checkpoint: cp,
		Status: PendingOpen, Created: start, Expires: prompt.Expires,
	}
	if err := m.store.SavePending(t.ctx, p, ups, removed); err != nil {
		// The approval still works in memory; it just would not survive a restart.
		lg.Error("store pending approval", "err", err)
	}
	ref, err := t.p.PostApproval(t.ctx, s.key, prompt)
	if err != nil {
		lg.Error("post approval", "err", err)
		return executor.Decision{Reason: "the approval request could not be posted"}
	}
	m.mu.Lock()
	w.ref = ref
	m.mu.Unlock()
	p.MessageRef = ref
	if err := m.store.SavePending(t.ctx, p, nil, nil); err != nil {
		lg.Error("store approval message reference", "err", err)
	}
	t.pendingIDs = append(t.pendingIDs, w.id)

	timer := time.NewTimer(m.opts.ApprovalTimeout)
	defer timer.Stop()
	select {
	case d := <-w.ch:
		m.opts.Metrics.Approval(string(req.Kind), outcomeName(d), m.opts.Now().Sub(start))
		return m.take(t, w, d)
	case <-timer.C:
		reason := fmt.Sprintf("no decision within %s", m.opts.ApprovalTimeout)
		if _, err := m.store.DecidePending(t.ctx, w.id, PendingExpired, "", reason); errors.Is(err, ErrAlreadyDecided) {
			return m.take(t, w, <-w.ch) // a click won the race; Decide delivers it
		}
		m.resolve(t.ctx, t.p, w, Outcome{Expired: true, Reason: reason})
		m.opts.Metrics.Approval(string(req.Kind), "expired", m.opts.Now().Sub(start))
		return executor.Decision{Reason: reason}
	case <-ctx.Done():
		cause := context.Cause(ctx)
		if errors.Is(cause, ErrShutdown) {
			t.suspended = true // stays pending in storage; resumes after restart
			return executor.Decision{Reason: "the bot is restarting"}
		}
		reason := "the turn was stopped"
		if _, err := m.store.DecidePending(t.ctx, w.id, PendingRejected, "", reason); errors.Is(err, ErrAlreadyDecided) {
			select {
			case d := <-w.ch:
				return m.take(t, w, d)
			default:
			}
		}
		m.resolve(t.ctx, t.p, w, Outcome{Reason: reason})
		return executor.Decision{Reason: reason}
	}
}

// take shows a person's decision on the request and uses it up: the
// stored approval is deleted before the decision reaches the tool, so a
// crash from here on never resumes the turn to run the tool again (its
// message is reported as cut off instead).
func (m *Manager) take(t *turn, w *waiter, d executor.Decision) executor.Decision {
	m.resolve(t.ctx, t.p, w, Outcome{Approved: d.Approved, Always: d.Always, By: d.By, Reason: d.Reason})
	m.consume(t.ctx, w.id)
	return d
}

// consume deletes a decided approval whose decision a turn is using.
func (m *Manager) consume(ctx context.Context, id string) {
	if err := m.store.DeletePending(ctx, id); err != nil && !errors.Is(err, ErrNotFound) {
		m.lg.Warn("delete used approval", "approval", id, "err", err)
	}
}

func maps(m map[string]executor.Decision) map[string]executor.Decision {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]executor.Decision, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func outcomeName(d executor.Decision) string {
	if d.Approved {
		return "approved"
	}
	return "rejected"
}

func (m *Manager) resolve(ctx context.Context, p Platform, w *waiter, o Outcome) {
	if w.ref == "" {
		return
	}
	if err := p.ResolveApproval(ctx, w.key, w.ref, w.prompt, o); err != nil {
		m.lg.Warn("resolve approval message", "approval", w.id, "err", err)
	}
}

// mayDecide reports whether user may decide an approval requested by
// requester.
func (m *Manager) mayDecide(user, requester string, isAdmin bool) bool {
	return user == requester || isAdmin || slices.Contains(m.opts.Admins, user)
}

// Decide records a person's decision on an approval (a button click). Only
// the requester or an admin may decide (ErrNotAllowed; nothing changes). A
// second decision returns ErrAlreadyDecided; an unknown id ErrNotFound. A
// decision on an approval from before a restart resumes its turn.
func (m *Manager) Decide(ctx context.Context, approvalID, user string, isAdmin bool, d executor.Decision) error {
	return m.DecideFrom(ctx, approvalID, "", user, isAdmin, d)
}

// DecideFrom is Decide for a click on the request message ref. The runtime
// stores a request's message reference only after posting it, so a crash
// in between leaves it unknown; the clicked message then stands in, and
// its controls are still removed.
func (m *Manager) DecideFrom(ctx context.Context, approvalID string, ref Ref, user string, isAdmin bool, d executor.Decision) error {
	w, rp, err := m.approval(ctx, approvalID)
	if err != nil {
		return fmt.Errorf("decide %s: %w", approvalID, err)
	}
	if !m.mayDecide(user, requesterOf(w, rp), isAdmin) {
		return ErrNotAllowed
	}
	if w != nil {
		m.mu.Lock()
		if w.ref == "" {
			w.ref = ref
		}
		m.mu.Unlock()
	}
	status := PendingRejected
	if d.Approved {
		status = PendingApproved
	}
	d.By = user
	stored, err := m.store.DecidePending(ctx, approvalID, status, user, d.Reason)
	if err != nil && !(w != nil && errors.Is(err, ErrNotFound)) {
		// A live waiter may not be stored yet: the click came between
		// posting the request and storing it.
		return fmt.Errorf("decide %s: %w", approvalID, err)
	}
	o := Outcome{Approved: d.Approved, Always: d.Always, By: user, Reason: d.Reason}
	if w != nil {
		// The waiting turn edits the request message.
		select {
		case w.ch <- d:
			return nil
		default:
			return fmt.Errorf("decide %s: %w", approvalID, ErrAlreadyDecided)
		}
	}
	m.mu.Lock()
	delete(m.recovered, approvalID)
	m.mu.Unlock()
	if stored.Key == (Key{}) {
		stored.Key = rp.Key
	}
	if stored.MessageRef == "" {
		stored.MessageRef = ref
	}
	rw := recoveredWaiter(stored)
	if p, err := m.platform(stored.Key.Platform); err == nil {
		m.resolve(ctx, p, rw, o)
	}
	_, err = m.enqueue(stored.Key, job{resume: &resumeJob{pending: stored, decision: d}})
	return err
}

// approval finds an open approval: its live waiter, or else the pending
// request (recovered after a restart, or open in storage: another replica
// or a turn about to wait). ErrNotFound and ErrAlreadyDecided otherwise.
func (m *Manager) approval(ctx context.Context, id string) (*waiter, Pending, error) {
	m.mu.Lock()
	w := m.waiters[id]
	rp, recovered := m.recovered[id]
	m.mu.Unlock()
	if w != nil || recovered {
		return w, rp, nil
	}
	p, err := m.store.GetPending(ctx, id)
	if err != nil {
		return nil, Pending{}, err
	}
	if p.Status != PendingOpen {
		return nil, Pending{}, ErrAlreadyDecided
	}
	return nil, p, nil
}

// requesterOf is who asked for an approval found by approval.
func requesterOf(w *waiter, p Pending) string {
	if w != nil {
		return w.requester
	}
	return p.Requester
}

func recoveredWaiter(p Pending) *waiter {
	return &waiter{
		id: p.ID, key: p.Key, requester: p.Requester, ref: p.MessageRef,
		prompt: ApprovalPrompt{ID: p.ID, Kind: p.Kind, Tool: p.Tool, Args: p.ArgsSummary, Requester: p.Requester, Expires: p.Expires},
	}
}

// Recover loads approvals that were waiting when the process stopped. Live
// ones work again (a click resumes the turn) until they expire; expired
// ones are closed and their threads told. Call it after AddPlatform and
// before serving.
func (m *Manager) Recover(ctx context.Context) error {
	live, expired, err := m.store.RecoverPending(ctx, m.opts.Now())
	if err != nil {
		return fmt.Errorf("recover approvals: %w", err)
	}
	var waiting []Pending
	for _, p := range live {
		if p.Status == PendingApproved || p.Status == PendingRejected {
			// Decided, but the process stopped before the turn was
			// stored: resume it with that decision now.
			d := executor.Decision{Approved: p.Status == PendingApproved, By: p.DecidedBy, Reason: p.Reason}
			if _, err := m.enqueue(p.Key, job{resume: &resumeJob{pending: p, decision: d}}); err != nil {
				return fmt.Errorf("recover approval %s: %w", p.ID, err)
			}
			continue
		}
		waiting = append(waiting, p)
	}
	m.mu.Lock()
	for _, p := range waiting {
		m.recovered[p.ID] = p
	}
	m.mu.Unlock()
	for _, p := range waiting {
		if p.Expires.IsZero() {
			continue
		}
		id, wait := p.ID, p.Expires.Sub(m.opts.Now())
		time.AfterFunc(wait, func() { m.expireRecovered(id) })
	}
	for _, p := range expired {
		m.tellExpired(ctx, p)
	}
	if len(live)+len(expired) > 0 {
		m.lg.Info("recovered approvals", "live", len(live), "expired", len(expired))
	}
	// Messages of turns waiting for an approval are the approvals' to finish.
	owned := map[string]bool{}
	for _, p := range live {
		if ev := envelopeOf(p).EventID; ev != "" {
			owned[p.Key.Platform+"/"+ev] = true
		}
	}
	return m.recoverInbox(ctx, owned)
}

// envelopeOf decodes the turn envelope stored with an approval; a bad one
// decodes as empty.
func envelopeOf(p Pending) envelope {
	var env envelope
	_ = json.Unmarshal(p.Checkpoint, &env)
	return env
}

func (m *Manager) expireRecovered(id string) {
	m.mu.Lock()
	p, ok := m.recovered[id]
	delete(m.recovered, id)
	m.mu.Unlock()
	if !ok {
		return
	}
	ctx := context.Background()
	if _, err := m.store.DecidePending(ctx, id, PendingExpired, "", "no decision in time"); err != nil {
		return // decided meanwhile
	}
	m.tellExpired(ctx, p)
}

// tellExpired closes an approval that outlived a restart and tells its
// thread that the request was not completed.
func (m *Manager) tellExpired(ctx context.Context, p Pending) {
	pl, err := m.platform(p.Key.Platform)
	if err != nil {
		return
	}
	m.resolve(ctx, pl, recoveredWaiter(p), Outcome{Expired: true, Reason: "no decision in time"})
	env := envelopeOf(p)
	if env.EventID != "" {
		m.dropInbound(ctx, Inbound{Key: p.Key, EventID: env.EventID})
	}
	if env.StatusRef != "" {
		_ = pl.Edit(ctx, p.Key, env.StatusRef, Out{Kind: OutStatus, Text: "⏹ Stopped: the approval expired", Final: true})
	}
	_, _ = pl.Post(ctx, p.Key, Out{Kind: OutNotice, Text: fmt.Sprintf("⚠️ The approval for `%s` expired, so I stopped that request. Ask again if you still need it.", p.Tool)})
	if err := m.store.DeletePending(ctx, p.ID); err != nil {
		m.lg.Warn("delete expired approval", "approval", p.ID, "err", err)
	}
}

// Recovered returns the approvals of a platform that wait from before a
// restart, oldest first, as prompts (for adapters that must ask again, such
// as the console; chat platforms keep their buttons).
func (m *Manager) Recovered(platform string) []ApprovalPrompt {
	m.mu.Lock()
	defer m.mu.Unlock()
	var ps []Pending
	for _, p := range m.recovered {
		if p.Key.Platform == platform {
			ps = append(ps, p)
		}
	}
	slices.SortFunc(ps, func(a, b Pending) int { return a.Created.Compare(b.Created) })
	out := make([]ApprovalPrompt, 0, len(ps))
	for _, p := range ps {
		out = append(out, recoveredWaiter(p).prompt)
	}
	return out
}
