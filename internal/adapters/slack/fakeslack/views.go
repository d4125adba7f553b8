package fakeslack

import (
	"encoding/json"
	"slices"
	"time"
)

// View is a view opened with views.open.
type View struct {
	// ID is the view id the server assigned, like "V0007".
	ID        string
	TriggerID string
	// Type, CallbackID and PrivateMetadata are copied out of JSON.
	Type            string
	CallbackID      string
	PrivateMetadata string
	// JSON is the view as the client sent it.
	JSON json.RawMessage
	At   time.Time
}

// Views returns copies of the views opened so far, in order.
func (s *Server) Views() []View {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := slices.Clone(s.views)
	for i := range out {
		out[i].JSON = append(json.RawMessage(nil), out[i].JSON...)
	}
	return out
}

// openView answers views.open. A trigger id opens one view only; a second
// use fails with exchanged_trigger_id, as on Slack.
func (s *Server) openView(r *apiRequest) (map[string]any, *apiError) {
	trigger := r.get("trigger_id")
	if trigger == "" {
		return nil, fail("invalid_trigger_id")
	}
	view, _ := r.json["view"].(map[string]any)
	if view == nil && r.get("view") != "" { // form-encoded: view is a JSON string
		if json.Unmarshal([]byte(r.get("view")), &view) != nil {
			return nil, fail("invalid_arguments", "[ERROR] view is not a JSON object")
		}
	}
	if e := checkView(view); e != nil {
		return nil, e
	}
	if s.usedTrig[trigger] {
		return nil, fail("exchanged_trigger_id")
	}
	s.usedTrig[trigger] = true
	raw, _ := json.Marshal(view)
	v := View{
		ID:              s.nextID("V"),
		TriggerID:       trigger,
		Type:            str(view["type"]),
		CallbackID:      str(view["callback_id"]),
		PrivateMetadata: str(view["private_metadata"]),
		JSON:            raw,
		At:              time.Now(),
	}
	s.views = append(s.views, v)
	return map[string]any{"view": s.viewJSON(v, nil)}, nil
}

// viewJSON renders v as Slack returns it, with state values when given.
// The caller holds s.mu.
func (s *Server) viewJSON(v View, values map[string]any) map[string]any {
	out := map[string]any{}
	json.Unmarshal(v.JSON, &out)
	if values == nil {
		values = map[string]any{}
	}
	out["id"] = v.ID
	out["team_id"] = s.opts.TeamID
	out["app_id"] = AppID
	out["bot_id"] = s.opts.BotID
	out["app_installed_team_id"] = s.opts.TeamID
	out["root_view_id"] = v.ID
	out["previous_view_id"] = nil
	out["hash"] = "fakeslack." + v.ID
	out["state"] = map[string]any{"values": values}
	if _, ok := out["blocks"]; !ok {
		out["blocks"] = []any{}
	}
	return out
}
