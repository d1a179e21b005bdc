-- Several bot processes share one database, and any of them may die: when a running table or
-- an open lobby next needs attention (a deadline, a computer's move, the lobby's expiry) is
-- kept with it, so that every live process can claim the tables whose time has come. NULL:
-- unknown (a table written by a bot before this column), which counts as due.
ALTER TABLE tables ADD COLUMN wake_at REAL;
UPDATE tables SET wake_at = expires_at WHERE status = 'lobby';
CREATE INDEX tables_by_wake ON tables (wake_at) WHERE status IN ('lobby', 'running');
