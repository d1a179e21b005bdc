-- Privacy (issue 38): DURAK_KEEP_DAYS prunes the action logs of tables that ended long ago;
-- /forgetme erases a person (tg_durak/storage/privacy.py).

-- When a table's action log was deleted (NULL: it is whole). Its snapshot, seats and results
-- stay, so that the check still reads the table's end and a rebuild still finds its results.
ALTER TABLE tables ADD COLUMN pruned_at REAL;

-- The log of an open table stays append-only; an ended table's may be deleted whole.
DROP TRIGGER actions_no_delete;

CREATE TRIGGER actions_no_delete BEFORE DELETE ON actions
WHEN NOT EXISTS (SELECT 1 FROM tables t WHERE t.id = OLD.table_id
                 AND t.status IN ('finished', 'aborted'))
BEGIN
    SELECT RAISE(ABORT, 'actions are append-only');
END;

-- Each person's place in the order his table was rated in: its people by their user ids at its
-- end, as tg_durak/play/ratings.py takes them. A rebuild rates in this order, so that a person
-- whose id later became a tombstone (/forgetme) is taken where he was, and everyone else's
-- rating comes out the same to the last bit (openskill takes tied players in the order given).
ALTER TABLE results ADD COLUMN rating_order INTEGER NOT NULL DEFAULT 0;
UPDATE results SET rating_order = (SELECT COUNT(*) FROM results r
                                   WHERE r.table_id = results.table_id
                                   AND r.user_id < results.user_id);
