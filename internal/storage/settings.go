package storage

import (
	"context"
	"database/sql"
	"fmt"
)

// SetToolSetting upserts a setting for its scope, kind and name. A zero
// Updated takes the store's clock. A Channel needs a Platform; a Workspace
// or Channel without one is ErrInvalid, as is an unknown Kind.
func (s *SQLite) SetToolSetting(ctx context.Context, ts ToolSetting) error {
	if err := checkSetting(ts); err != nil {
		return fmt.Errorf("set tool setting: %w", err)
	}
	err := s.write(ctx, "set tool setting", func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO tool_settings (platform, workspace, channel,
			kind, name, enabled, set_by, updated) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
			ON CONFLICT (platform, workspace, channel, kind, name) DO UPDATE SET
				enabled = excluded.enabled, set_by = excluded.set_by, updated = excluded.updated`,
			ts.Platform, ts.Workspace, ts.Channel, ts.Kind, ts.Name, ts.Enabled, ts.By,
			enc(s.orNow(ts.Updated)))
		return err
	})
	if err != nil {
		return fmt.Errorf("set tool setting %s %s: %w", ts.Kind, ts.Name, err)
	}
	return nil
}

// DeleteToolSetting removes the setting with the scope, kind and name of
// ts, so the scope inherits again (ErrNotFound).
func (s *SQLite) DeleteToolSetting(ctx context.Context, ts ToolSetting) error {
	err := s.write(ctx, "delete tool setting", func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM tool_settings WHERE platform = $1
			AND workspace = $2 AND channel = $3 AND kind = $4 AND name = $5`,
			ts.Platform, ts.Workspace, ts.Channel, ts.Kind, ts.Name)
		return oneRow(res, err)
	})
	if err != nil {
		return fmt.Errorf("delete tool setting %s %s: %w", ts.Kind, ts.Name, err)
	}
	return nil
}

// ToolSettings returns the settings that apply to a channel of a workspace
// on a platform, least specific first, so later rows win: every platform,
// then the platform, then the workspace, then the channel; within a scope
// by kind and name. An empty channel asks for the workspace's settings, and
// an empty workspace and channel for the platform's.
func (s *SQLite) ToolSettings(ctx context.Context, platform, workspace, channel string) ([]ToolSetting, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT platform, workspace, channel, kind, name,
		enabled, set_by, updated FROM tool_settings
		WHERE (workspace = '' AND channel = '' AND platform IN ('', $1))
		   OR (platform = $1 AND workspace = $2 AND channel IN ('', $3))
		ORDER BY channel <> '', workspace <> '', platform <> '', kind, name`,
		platform, workspace, channel)
	if err != nil {
		return nil, fmt.Errorf("tool settings %s/%s/%s: %w", platform, workspace, channel, err)
	}
	defer rows.Close()
	var out []ToolSetting
	for rows.Next() {
		var (
			ts      ToolSetting
			updated int64
		)
		if err := rows.Scan(&ts.Platform, &ts.Workspace, &ts.Channel, &ts.Kind, &ts.Name,
			&ts.Enabled, &ts.By, &updated); err != nil {
			return nil, fmt.Errorf("tool settings %s/%s/%s: %w", platform, workspace, channel, err)
		}
		ts.Updated = dec(updated)
		out = append(out, ts)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("tool settings %s/%s/%s: %w", platform, workspace, channel, err)
	}
	return out, nil
}

func checkSetting(ts ToolSetting) error {
	switch {
	case ts.Kind != SettingGroup && ts.Kind != SettingTool:
		return fmt.Errorf("%w: kind %q", ErrInvalid, ts.Kind)
	case ts.Name == "":
		return fmt.Errorf("%w: empty name", ErrInvalid)
	case ts.Platform == "" && (ts.Workspace != "" || ts.Channel != ""):
		return fmt.Errorf("%w: a workspace or channel setting needs a platform", ErrInvalid)
	}
	return nil
}
