-- Several bot processes share one database, and any of them may die: when a running table or
-- an open lobby next needs attention (a deadline, a computer's move, the lobby's expiry) is
-- kept with it, so that every live process can claim the tables whose time has come. NULL:
-- nothing is due until someone acts. A table written before this column is due at once (its
-- first wake stores its real time).
ALTER TABLE tables ADD COLUMN wake_at REAL;
UPDATE tables SET wake_at = updated_at WHERE status = 'running';
UPDATE tables SET wake_at = expires_at WHERE status = 'lobby';
CREATE INDEX tables_by_wake ON tables (wake_at) WHERE status IN ('lobby', 'running');
