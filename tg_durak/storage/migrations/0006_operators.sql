-- The operators' work (DURAK_OPERATORS, issue 38): bans, maintenance, broadcasts, and the record
-- of everything an operator did. Maintenance is the meta key 'maintenance_until'.

-- A banned person's updates change nothing; one row a person while the ban lasts.
CREATE TABLE bans (
    user_id INTEGER PRIMARY KEY,
    by_id   INTEGER NOT NULL,                     -- the operator
    at      REAL    NOT NULL
);

-- What each operator did, append-only: bans, unbans, maintenance, broadcasts.
CREATE TABLE operator_log (
    id       INTEGER PRIMARY KEY AUTOINCREMENT,
    operator INTEGER NOT NULL,
    action   TEXT    NOT NULL,
    detail   TEXT    NOT NULL DEFAULT '{}',       -- JSON
    at       REAL    NOT NULL
);

CREATE TRIGGER operator_log_no_update BEFORE UPDATE ON operator_log
BEGIN
    SELECT RAISE(ABORT, 'the operator log is append-only');
END;

-- When a person last used the bot, and his @username (lower case) for /ban @name: a broadcast
-- goes to those seen in the last 90 days. Written at most a few times a day per person.
CREATE TABLE visits (
    user_id  INTEGER PRIMARY KEY,
    username TEXT,
    seen_at  REAL    NOT NULL
);
CREATE INDEX visits_by_username ON visits (username);
CREATE INDEX visits_by_seen ON visits (seen_at);
-- Whoever the bot knew before counts as seen at his row's last change.
INSERT INTO visits (user_id, username, seen_at) SELECT id, NULL, updated_at FROM users;

-- A broadcast: a draft until its operator confirms it, then sent by one process at a time
-- (the lease), stopped by /broadcast stop, done when nobody is left waiting.
CREATE TABLE broadcasts (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    operator    INTEGER NOT NULL,
    text        TEXT    NOT NULL,
    status      TEXT    NOT NULL
        CHECK (status IN ('draft', 'sending', 'stopped', 'done', 'cancelled')),
    message_id  INTEGER,                          -- the operator's progress message
    lease_owner TEXT,                             -- the process sending it
    lease_until REAL,
    created_at  REAL    NOT NULL
);
CREATE INDEX broadcasts_by_status ON broadcasts (status);

-- Who a confirmed broadcast goes to, taken once at the confirmation. A recipient goes from
-- 'waiting' to 'sending' (committed before his message is handed to Telegram) and then to
-- 'sent' or 'failed'; a 'sending' row whose process died is 'unknown' and never sent again:
-- nobody gets a second copy (at most once).
CREATE TABLE broadcast_recipients (
    broadcast_id INTEGER NOT NULL REFERENCES broadcasts (id),
    user_id      INTEGER NOT NULL,
    state        TEXT    NOT NULL DEFAULT 'waiting'
        CHECK (state IN ('waiting', 'sending', 'sent', 'failed', 'unknown')),
    PRIMARY KEY (broadcast_id, user_id)
) WITHOUT ROWID;
CREATE INDEX broadcast_recipients_by_state ON broadcast_recipients (broadcast_id, state);

-- Each process's own heartbeat (the meta 'alive_at' is the last of any): /opstats counts the
-- processes alive.
CREATE TABLE processes (
    id         TEXT PRIMARY KEY,
    host       TEXT NOT NULL,
    pid        INTEGER NOT NULL,
    started_at REAL NOT NULL,
    alive_at   REAL NOT NULL
);
