-- Group games: a lobby is a `tables` row with status 'lobby' (kind 'group') until it starts.

-- Who opened the lobby (host rights), the forum topic it lives in (NULL outside forums), the
-- deep-link payload that seats a person through the private chat, when an unstarted lobby
-- expires, and the language of the group's public message (the host's at /new).
ALTER TABLE tables ADD COLUMN host_id INTEGER;
ALTER TABLE tables ADD COLUMN thread_id INTEGER;
ALTER TABLE tables ADD COLUMN invite TEXT;
ALTER TABLE tables ADD COLUMN expires_at REAL;
ALTER TABLE tables ADD COLUMN language TEXT;
-- SQLite cannot add a UNIQUE column; NULLs (private tables) never clash in a unique index.
CREATE UNIQUE INDEX tables_by_invite ON tables (invite);

-- The bot may write to this person privately: he wrote to it in private, or a private message
-- to him went through; cleared on a 403. Whoever already has a private table has opened it.
ALTER TABLE users ADD COLUMN reachable INTEGER NOT NULL DEFAULT 0;
UPDATE users SET reachable = 1 WHERE id IN (
    SELECT s.user_id FROM seats s JOIN tables t ON t.id = s.table_id WHERE t.kind = 'private');

-- A person who left or was kicked keeps his seat row (a computer plays it for the rest of the
-- game) and counts as 'resigned' in the results.
ALTER TABLE seats ADD COLUMN status TEXT NOT NULL DEFAULT 'playing'
    CHECK (status IN ('playing', 'left', 'kicked'));
ALTER TABLE seats ADD COLUMN left_at REAL;
