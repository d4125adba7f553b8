package basic

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	// The zone database is embedded so that the tool works in images that
	// ship no /usr/share/zoneinfo.
	_ "time/tzdata"

	"github.com/threadbot/threadbot/internal/core/executor"
)

// TimeResult is the time tool's output data.
type TimeResult struct {
	Zone    string `json:"zone"`
	Time    string `json:"time"` // RFC 3339
	Weekday string `json:"weekday"`
	Abbrev  string `json:"abbrev"` // zone abbreviation, such as CET
	Offset  string `json:"offset"` // UTC offset, such as +01:00
	Unix    int64  `json:"unix"`
}

var timeSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "zone": {
      "type": "string",
      "description": "IANA time zone name such as \"Europe/Berlin\", \"America/New_York\" or \"UTC\". Omit for the default zone."
    }
  },
  "additionalProperties": false
}`)

func timeTool(opts Options) *executor.Tool {
	return &executor.Tool{
		Name:        ToolTime,
		Description: "Get the current date and time in a time zone: RFC 3339 timestamp, weekday, zone offset and Unix time.",
		Parameters:  timeSchema,
		Permission:  executor.Permission{Execution: executor.Auto, Result: executor.Never},
		Run: func(ctx context.Context, call executor.Call, args map[string]any) (executor.Output, error) {
			name, _ := args["zone"].(string)
			name = strings.TrimSpace(name)
			fromDefault := name == ""
			if fromDefault {
				name = opts.DefaultZone
			}
			loc, err := loadZone(name)
			if err != nil {
				if fromDefault {
					return executor.Output{}, fmt.Errorf("the configured default time zone is invalid (%v); pass a zone argument such as \"UTC\"", err)
				}
				return executor.Output{}, err
			}
			now := opts.Now().In(loc)
			abbrev, _ := now.Zone()
			res := TimeResult{
				Zone:    loc.String(),
				Time:    now.Format(time.RFC3339),
				Weekday: now.Weekday().String(),
				Abbrev:  abbrev,
				Offset:  now.Format("-07:00"),
				Unix:    now.Unix(),
			}
			return executor.Output{Data: res, Title: res.Time + " " + res.Zone}, nil
		},
		Format: func(out executor.Output, _ map[string]any) string {
			r, ok := out.Data.(TimeResult)
			if !ok {
				return fmt.Sprint(out.Data)
			}
			return fmt.Sprintf("%s (%s)\nzone: %s (%s, UTC%s)\nunix: %d", r.Time, r.Weekday, r.Zone, r.Abbrev, r.Offset, r.Unix)
		},
	}
}

// loadZone loads an IANA zone; "" is UTC. "Local" is refused because the
// server's zone means nothing to the people in a chat.
func loadZone(name string) (*time.Location, error) {
	if name == "" || strings.EqualFold(name, "UTC") {
		return time.UTC, nil
	}
	if strings.EqualFold(name, "local") {
		return nil, fmt.Errorf("time zone %q is the server's own zone and means nothing to the user; use an IANA name such as \"Europe/Berlin\" or \"UTC\"", name)
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, fmt.Errorf("unknown time zone %q: use an IANA name such as \"Europe/Berlin\", \"America/New_York\", \"Asia/Tokyo\" or \"UTC\" (abbreviations like PST are not zones)", name)
	}
	return loc, nil
}
