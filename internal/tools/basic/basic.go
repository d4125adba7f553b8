package basic

import (
	_ "embed"
	"fmt"
	"strings"
	"time"

	"github.com/threadbot/threadbot/internal/core/executor"
)

// Tool and group names.
const (
	GroupName     = "basic"
	ToolTime      = "time"
	ToolCalculate = "calculate"
)

//go:embed rules.md
var rules string

// Options configures the basic group. The zero value is usable: UTC as the
// default zone and the real clock.
type Options struct {
	// DefaultZone is the IANA time zone the time tool uses when a call names
	// none; "" means UTC.
	DefaultZone string
	// Now returns the current time; nil means time.Now.
	Now func() time.Time
}

// Validate reports a DefaultZone that is not a known IANA time zone.
// Group accepts it anyway; the time tool then explains the problem on
// calls that name no zone.
func (o Options) Validate() error {
	if _, err := loadZone(o.DefaultZone); err != nil {
		return fmt.Errorf("basic: default time zone: %w", err)
	}
	return nil
}

// Group returns the basic group with the time and calculate tools, both
// with policy auto. The tools keep no state, so one group can be registered
// in every session's executor.
func Group(opts Options) *executor.Group {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &executor.Group{
		Name:  GroupName,
		Tools: []*executor.Tool{timeTool(opts), calcTool()},
		Rules: strings.TrimSpace(rules),
	}
}
