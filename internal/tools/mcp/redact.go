package mcp

import (
	"cmp"
	"slices"
	"strings"
)

// minSecret is the shortest value the redactor hides; shorter values are
// not secrets, and hiding them would garble every message.
const minSecret = 4

// redactor hides a server's secret values in text meant for logs, errors
// and the model.
type redactor struct {
	secrets []string // longest first, so a value inside another goes last
}

func newRedactor(secrets []string) *redactor {
	var r redactor
	for _, s := range secrets {
		if len(s) >= minSecret && !slices.Contains(r.secrets, s) {
			r.secrets = append(r.secrets, s)
		}
	}
	slices.SortFunc(r.secrets, func(a, b string) int {
		return cmp.Or(cmp.Compare(len(b), len(a)), strings.Compare(a, b))
	})
	return &r
}

// text returns s with every secret replaced by [redacted].
func (r *redactor) text(s string) string {
	for _, v := range r.secrets {
		s = strings.ReplaceAll(s, v, "[redacted]")
	}
	return s
}

// err returns err with its message redacted; errors.Is and errors.As still
// see the original.
func (r *redactor) err(err error) error {
	if err == nil || len(r.secrets) == 0 {
		return err
	}
	msg := r.text(err.Error())
	if msg == err.Error() {
		return err
	}
	return &redactedError{msg: msg, err: err}
}

type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }
