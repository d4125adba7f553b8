package fakeslack

// User is a workspace member that users.info knows.
type User struct {
	ID       string
	Name     string
	RealName string
	IsAdmin  bool
	IsOwner  bool
	IsBot    bool
}

// AddUser registers u for users.info, replacing any user with the same ID.
func (s *Server) AddUser(u User) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.users[u.ID] = u
}

// userInfo answers users.info.
func (s *Server) userInfo(r *apiRequest) (map[string]any, *apiError) {
	u, ok := s.users[r.get("user")]
	if !ok {
		return nil, fail("user_not_found")
	}
	realName := u.RealName
	if realName == "" {
		realName = u.Name
	}
	return map[string]any{"user": map[string]any{
		"id":        u.ID,
		"team_id":   s.opts.TeamID,
		"name":      u.Name,
		"real_name": realName,
		"deleted":   false,
		"is_admin":  u.IsAdmin,
		"is_owner":  u.IsOwner,
		"is_bot":    u.IsBot,
		"tz":        "UTC",
		"tz_offset": 0,
		"profile": map[string]any{
			"real_name":    realName,
			"display_name": u.Name,
			"team":         s.opts.TeamID,
		},
	}}, nil
}

// authTest answers auth.test with the bot's identity.
func (s *Server) authTest(*apiRequest) (map[string]any, *apiError) {
	return map[string]any{
		"url":     s.URL() + "/",
		"team":    "fakeslack",
		"user":    "bot",
		"team_id": s.opts.TeamID,
		"user_id": s.opts.BotUserID,
		"bot_id":  s.opts.BotID,
	}, nil
}
