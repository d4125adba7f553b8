-- 0001: the initial schema. Times are INTEGER Unix nanoseconds (UTC), 0 for
-- the zero time; booleans are 0/1; tags and settings are JSON text.

CREATE TABLE sessions (
	id        TEXT PRIMARY KEY,
	platform  TEXT NOT NULL,
	workspace TEXT NOT NULL DEFAULT '',
	channel   TEXT NOT NULL DEFAULT '',
	thread    TEXT NOT NULL DEFAULT '',
	settings  TEXT NOT NULL DEFAULT '{}',
	created   INTEGER NOT NULL,
	updated   INTEGER NOT NULL,
	UNIQUE (platform, workspace, channel, thread)
) STRICT;

CREATE TABLE messages (
	id                INTEGER PRIMARY KEY AUTOINCREMENT,
	session_id        TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
	role              TEXT NOT NULL,
	content           TEXT NOT NULL,
	hint_size         INTEGER NOT NULL DEFAULT 0,
	chain_json        BLOB,
	native_json       BLOB,
	prompt_tokens     INTEGER NOT NULL DEFAULT 0,
	completion_tokens INTEGER NOT NULL DEFAULT 0,
	total_tokens      INTEGER NOT NULL DEFAULT 0,
	tokens_sent       INTEGER NOT NULL DEFAULT 0,
	created           INTEGER NOT NULL
) STRICT;
CREATE INDEX messages_session ON messages (session_id, id);

CREATE TABLE variables (
	session_id   TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
	name         TEXT NOT NULL,
	value        TEXT NOT NULL,
	descr        TEXT NOT NULL DEFAULT '',
	type         TEXT NOT NULL,
	tags         TEXT NOT NULL DEFAULT '[]',
	keep         INTEGER NOT NULL DEFAULT 0,
	created      INTEGER NOT NULL,
	updated      INTEGER NOT NULL,
	last_visited INTEGER NOT NULL,
	ref_count    INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY (session_id, name)
) STRICT;

CREATE TABLE decisions (
	session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
	key        TEXT NOT NULL,
	tool       TEXT NOT NULL,
	approved   INTEGER NOT NULL,
	reason     TEXT NOT NULL DEFAULT '',
	decided_by TEXT NOT NULL DEFAULT '',
	created    INTEGER NOT NULL,
	PRIMARY KEY (session_id, key)
) STRICT;

CREATE TABLE tool_settings (
	platform  TEXT NOT NULL DEFAULT '',
	workspace TEXT NOT NULL DEFAULT '',
	channel   TEXT NOT NULL DEFAULT '',
	kind      TEXT NOT NULL CHECK (kind IN ('group', 'tool')),
	name      TEXT NOT NULL,
	enabled   INTEGER NOT NULL,
	set_by    TEXT NOT NULL DEFAULT '',
	updated   INTEGER NOT NULL,
	UNIQUE (platform, workspace, channel, kind, name)
) STRICT;

CREATE TABLE pending_approvals (
	id           TEXT PRIMARY KEY,
	session_id   TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
	call_id      TEXT NOT NULL DEFAULT '',
	tool         TEXT NOT NULL DEFAULT '',
	args_summary TEXT NOT NULL DEFAULT '',
	requester    TEXT NOT NULL DEFAULT '',
	message_ref  TEXT NOT NULL DEFAULT '',
	kind         TEXT NOT NULL DEFAULT '',
	checkpoint   BLOB,
	status       TEXT NOT NULL DEFAULT 'pending'
		CHECK (status IN ('pending', 'approved', 'rejected', 'expired')),
	decided_by   TEXT NOT NULL DEFAULT '',
	reason       TEXT NOT NULL DEFAULT '',
	created      INTEGER NOT NULL,
	expires      INTEGER NOT NULL DEFAULT 0,
	decided      INTEGER NOT NULL DEFAULT 0
) STRICT;
CREATE INDEX pending_approvals_status ON pending_approvals (status, expires);
CREATE INDEX pending_approvals_session ON pending_approvals (session_id);

CREATE TABLE processed_events (
	platform TEXT NOT NULL,
	event_id TEXT NOT NULL,
	seen_at  INTEGER NOT NULL,
	PRIMARY KEY (platform, event_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX processed_events_seen_at ON processed_events (seen_at);

-- The audit trail outlives sessions (no foreign key) and is removed only by
-- Prune; session_id is '' for entries that belong to no session.
CREATE TABLE audit (
	id          INTEGER PRIMARY KEY AUTOINCREMENT,
	session_id  TEXT NOT NULL DEFAULT '',
	kind        TEXT NOT NULL,
	tool        TEXT NOT NULL DEFAULT '',
	call_id     TEXT NOT NULL DEFAULT '',
	status      TEXT NOT NULL DEFAULT '',
	actor       TEXT NOT NULL DEFAULT '',
	detail      TEXT NOT NULL DEFAULT '',
	duration_ns INTEGER NOT NULL DEFAULT 0,
	at          INTEGER NOT NULL
) STRICT;
CREATE INDEX audit_session ON audit (session_id, id);
CREATE INDEX audit_at ON audit (at);
