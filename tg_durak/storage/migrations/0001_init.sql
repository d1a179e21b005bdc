-- Initial schema. JSON columns hold compact UTF-8 JSON text written by tg_durak/storage/.
-- Times are Unix seconds (REAL).

CREATE TABLE users (
    id         INTEGER PRIMARY KEY,               -- Telegram user id
    name       TEXT    NOT NULL,
    language   TEXT,                              -- NULL: follow the Telegram client language
    settings   TEXT    NOT NULL DEFAULT '{}',
    created_at REAL    NOT NULL,
    updated_at REAL    NOT NULL
);

-- AUTOINCREMENT so that an id is never reused: old callback buttons carry table ids.
CREATE TABLE tables (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    chat_id    INTEGER NOT NULL,
    kind       TEXT    NOT NULL CHECK (kind IN ('private', 'group')),
    status     TEXT    NOT NULL CHECK (status IN ('lobby', 'running', 'finished', 'aborted')),
    options    TEXT    NOT NULL,
    snapshot   TEXT,
    version    INTEGER NOT NULL DEFAULT 0,        -- number of entries in the table's action log
    created_at REAL    NOT NULL,
    updated_at REAL    NOT NULL
);
CREATE INDEX tables_by_chat ON tables (chat_id, status);
CREATE INDEX tables_by_status ON tables (status);

-- user_id has no foreign key: a player may be seated before anything else is known about them.
CREATE TABLE seats (
    table_id INTEGER NOT NULL REFERENCES tables (id),
    seat     INTEGER NOT NULL,
    user_id  INTEGER,                             -- NULL: a computer player
    name     TEXT    NOT NULL,
    level    TEXT,                                -- computer strength; NULL for people
    PRIMARY KEY (table_id, seat)
) WITHOUT ROWID;
CREATE INDEX seats_by_user ON seats (user_id);

-- One row per message that shows a table. A primary key cannot hold NULL, so the group's public
-- message is stored with viewer = 0 (Telegram user ids are positive); storage/messages.py maps
-- it to None.
CREATE TABLE messages (
    table_id   INTEGER NOT NULL REFERENCES tables (id),
    viewer     INTEGER NOT NULL,
    chat_id    INTEGER NOT NULL,
    message_id INTEGER NOT NULL,
    PRIMARY KEY (table_id, viewer)
) WITHOUT ROWID;

-- The audit trail: replaying it from the table's seed reproduces the snapshot.
CREATE TABLE actions (
    table_id INTEGER NOT NULL REFERENCES tables (id),
    seq      INTEGER NOT NULL,                    -- 1, 2, ... ; equals the table version after it
    entry    TEXT    NOT NULL,
    at       REAL    NOT NULL,
    PRIMARY KEY (table_id, seq)
) WITHOUT ROWID;

CREATE TRIGGER actions_no_update BEFORE UPDATE ON actions
BEGIN
    SELECT RAISE(ABORT, 'actions are append-only');
END;

CREATE TRIGGER actions_no_delete BEFORE DELETE ON actions
BEGIN
    SELECT RAISE(ABORT, 'actions are append-only');
END;

CREATE TABLE results (
    table_id INTEGER NOT NULL REFERENCES tables (id),
    user_id  INTEGER NOT NULL,
    outcome  TEXT    NOT NULL CHECK (outcome IN ('durak', 'safe', 'draw', 'resigned')),
    place    INTEGER NOT NULL,
    PRIMARY KEY (table_id, user_id)
) WITHOUT ROWID;
CREATE INDEX results_by_user ON results (user_id);

CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) WITHOUT ROWID;
