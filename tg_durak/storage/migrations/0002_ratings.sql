-- Ratings of people (tg_durak/play/ratings.py computes them; tg_durak/storage/results.py
-- writes what it is given).

-- When a table closed: rated games are replayed in this order (then by table id) to rebuild the
-- ratings. Tables closed before this migration take their last change as their closing time.
ALTER TABLE tables ADD COLUMN finished_at REAL;
UPDATE tables SET finished_at = updated_at WHERE status IN ('finished', 'aborted');

-- One row per person with at least one rated game. `shown` is the number players see, kept so
-- that a leaderboard can be ordered by it without knowing its formula.
CREATE TABLE ratings (
    user_id    INTEGER PRIMARY KEY,
    mu         REAL    NOT NULL,
    sigma      REAL    NOT NULL,
    games      INTEGER NOT NULL,                  -- rated games played
    shown      INTEGER NOT NULL,
    updated_at REAL    NOT NULL                   -- finished_at of the last rated game
) WITHOUT ROWID;
CREATE INDEX ratings_by_shown ON ratings (shown DESC);

-- Which results moved the ratings, and each person's rating after that game. A result without a
-- row here was a game against computers. Rebuilt from results by `ratings --rebuild`.
CREATE TABLE rating_history (
    table_id INTEGER NOT NULL,
    user_id  INTEGER NOT NULL,
    mu       REAL    NOT NULL,
    sigma    REAL    NOT NULL,
    PRIMARY KEY (table_id, user_id),
    FOREIGN KEY (table_id, user_id) REFERENCES results (table_id, user_id)
) WITHOUT ROWID;
CREATE INDEX rating_history_by_user ON rating_history (user_id);
