-- Quick games with people (tg_durak/play/matching.py): who waits for which game, who reported
-- whom after one, and who wants a private message when a group's next lobby opens.

-- One row per person waiting; deleted in the transaction that seats him (or when he leaves).
-- `game` is the game's key (variant/players/deck); `chat_id`, `message_id` his waiting message,
-- edited while he waits; after `wait_until` he may start with computers in the empty seats.
CREATE TABLE quick_queue (
    user_id    INTEGER PRIMARY KEY,
    game       TEXT    NOT NULL,
    name       TEXT    NOT NULL,
    chat_id    INTEGER NOT NULL,
    message_id INTEGER,
    joined_at  REAL    NOT NULL,
    wait_until REAL    NOT NULL
);
CREATE INDEX quick_queue_by_game ON quick_queue (game, joined_at);

-- A report after a quick game: the two are never matched again (either way); counted for
-- the operator.
CREATE TABLE quick_reports (
    reporter INTEGER NOT NULL,
    reported INTEGER NOT NULL,
    table_id INTEGER NOT NULL,
    reason   TEXT    NOT NULL CHECK (reason IN ('left', 'name')),
    at       REAL    NOT NULL,
    PRIMARY KEY (reporter, reported, table_id)
) WITHOUT ROWID;
CREATE INDEX quick_reports_by_reported ON quick_reports (reported);

-- /notify in a group: the person hears of the chat's next lobby. `title` is the group's title
-- when he asked; `told` the last lobby he was told of (each lobby once, whichever process
-- opens it).
CREATE TABLE lobby_subscribers (
    chat_id INTEGER NOT NULL,
    user_id INTEGER NOT NULL,
    title   TEXT    NOT NULL,
    since   REAL    NOT NULL,
    told    INTEGER,
    PRIMARY KEY (chat_id, user_id)
) WITHOUT ROWID;
