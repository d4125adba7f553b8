package storagetest

import (
	"testing"
	"time"

	"github.com/threadbot/threadbot/internal/storage"
)

func testToolSettings(t *testing.T, s storage.Store) {
	ctx := t.Context()
	rows := map[string]storage.ToolSetting{
		"all":         {Kind: storage.SettingGroup, Name: "web", Enabled: false, By: "config", Updated: at(1)},
		"slack":       {Platform: "slack", Kind: storage.SettingGroup, Name: "web", Enabled: true, By: "U0", Updated: at(2)},
		"T1":          {Platform: "slack", Workspace: "T1", Kind: storage.SettingTool, Name: "bash", Enabled: false, By: "U1", Updated: at(3)},
		"T1/C1":       {Platform: "slack", Workspace: "T1", Channel: "C1", Kind: storage.SettingGroup, Name: "web", Enabled: false, By: "U2", Updated: at(4)},
		"T1/C1 tool":  {Platform: "slack", Workspace: "T1", Channel: "C1", Kind: storage.SettingTool, Name: "bash", Enabled: true, By: "U2", Updated: at(5)},
		"T1/C2":       {Platform: "slack", Workspace: "T1", Channel: "C2", Kind: storage.SettingGroup, Name: "shell", Enabled: true, Updated: at(6)},
		"T2":          {Platform: "slack", Workspace: "T2", Kind: storage.SettingGroup, Name: "fs", Enabled: true, Updated: at(7)},
		"T2/C1":       {Platform: "slack", Workspace: "T2", Channel: "C1", Kind: storage.SettingGroup, Name: "fs", Enabled: false, Updated: at(8)},
		"discord":     {Platform: "discord", Kind: storage.SettingGroup, Name: "fs", Enabled: false, Updated: at(9)},
		"discord DM":  {Platform: "discord", Channel: "D1", Kind: storage.SettingTool, Name: "read", Enabled: true, Updated: at(10)},
		"discord G/C": {Platform: "discord", Workspace: "G1", Channel: "D1", Kind: storage.SettingTool, Name: "read", Enabled: false, Updated: at(11)},
	}
	for name, r := range rows {
		if err := s.SetToolSetting(ctx, r); err != nil {
			t.Fatalf("SetToolSetting(%s): %v", name, err)
		}
	}
	check := func(platform, workspace, channel string, want ...string) {
		t.Helper()
		got, err := s.ToolSettings(ctx, platform, workspace, channel)
		if err != nil {
			t.Fatalf("ToolSettings(%s, %s, %s): %v", platform, workspace, channel, err)
		}
		var wantRows []storage.ToolSetting
		for _, w := range want {
			wantRows = append(wantRows, rows[w])
		}
		equal(t, "ToolSettings("+platform+", "+workspace+", "+channel+")", got, wantRows)
	}
	check("slack", "T1", "C1", "all", "slack", "T1", "T1/C1", "T1/C1 tool")
	check("slack", "T1", "", "all", "slack", "T1")
	check("slack", "", "", "all", "slack")
	check("slack", "T2", "C1", "all", "slack", "T2", "T2/C1")
	check("slack", "T3", "C9", "all", "slack")
	check("discord", "", "D1", "all", "discord", "discord DM")
	check("discord", "G1", "D1", "all", "discord", "discord G/C")
	check("console", "", "", "all")

	// Setting again updates the row in place.
	r := rows["T1/C1"]
	r.Enabled, r.By, r.Updated = true, "U3", time.Time{}
	before := time.Now().Add(-time.Minute)
	if err := s.SetToolSetting(ctx, r); err != nil {
		t.Fatalf("SetToolSetting (update): %v", err)
	}
	got, err := s.ToolSettings(ctx, "slack", "T1", "C1")
	if err != nil {
		t.Fatalf("ToolSettings: %v", err)
	}
	if len(got) != 5 || !got[3].Enabled || got[3].By != "U3" || got[3].Updated.Before(before) {
		t.Errorf("after update: %+v; want row 3 enabled by U3 now", got)
	}

	if err := s.DeleteToolSetting(ctx, r); err != nil {
		t.Fatalf("DeleteToolSetting: %v", err)
	}
	wantErr(t, "DeleteToolSetting again", s.DeleteToolSetting(ctx, r), storage.ErrNotFound)
	check("slack", "T1", "C1", "all", "slack", "T1", "T1/C1 tool")

	for _, bad := range []storage.ToolSetting{
		{Platform: "slack", Kind: "plugin", Name: "x"},
		{Platform: "slack", Kind: storage.SettingTool},
		{Workspace: "T1", Kind: storage.SettingTool, Name: "x"},
	} {
		wantErr(t, "SetToolSetting(invalid)", s.SetToolSetting(ctx, bad), storage.ErrInvalid)
	}
}
