-- The inbox holds messages the bot accepted (and the platform considers
-- delivered) whose turn is not stored yet, so a crash or a restart loses
-- none: ones whose turn had not called a tool run after the restart, the
-- others are reported in their thread. SaveTurn deletes a message's row with its event.
CREATE TABLE inbox (
	platform    TEXT NOT NULL,
	event_id    TEXT NOT NULL,
	workspace   TEXT NOT NULL DEFAULT '',
	channel     TEXT NOT NULL DEFAULT '',
	thread      TEXT NOT NULL DEFAULT '',
	user_id     TEXT NOT NULL DEFAULT '',
	user_name   TEXT NOT NULL DEFAULT '',
	text        TEXT NOT NULL DEFAULT '',
	is_admin    INTEGER NOT NULL DEFAULT 0,
	received_at INTEGER NOT NULL,
	seq         INTEGER NOT NULL,
	started_at  INTEGER NOT NULL DEFAULT 0, -- 0 until its turn starts
	status_ref  TEXT NOT NULL DEFAULT '',   -- the turn's status message
	acted_at    INTEGER NOT NULL DEFAULT 0, -- 0 until the turn's first tool call
	attempts    INTEGER NOT NULL DEFAULT 0, -- turns started for it (replays bounded)
	PRIMARY KEY (platform, event_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX inbox_order ON inbox (received_at, seq);

-- The journal holds raw platform events between their acknowledgement and
-- the moment the runtime has taken them (stored in the inbox, or found not
-- for the bot), so a crash in that window loses none: they are read again
-- at start.
CREATE TABLE journal (
	platform    TEXT NOT NULL,
	id          TEXT NOT NULL,
	payload     BLOB NOT NULL,
	received_at INTEGER NOT NULL,
	seq         INTEGER NOT NULL,
	PRIMARY KEY (platform, id)
) STRICT, WITHOUT ROWID;
