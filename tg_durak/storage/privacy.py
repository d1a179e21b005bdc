"""What privacy asks of the database: erasing a person (/forgetme) and pruning old logs
(DURAK_KEEP_DAYS).

A forgotten person's rows about himself go (his `users` row: name, language, settings; his
`visits` row: his @username; his place in the quick games' queue, his /notify subscriptions, his
messages' ids). What other people's records stand on stays, under
a tombstone id instead of his: his seats (their name emptied: the screens call him "a former
player"), his results and the ratings that moved with them. A tombstone is below -2**53, where no
Telegram id is (they have at most 52 significant bits), one per forgotten person and never reused,
so that his tables still add up (`check`) and a rating rebuild gives everyone else what it gave
before: he stays one player in everyone else's games, just no longer a person the bot knows.
"""

from __future__ import annotations

import time

from tg_durak.play.rows import TableStatus
from tg_durak.storage.columns import dumps, loads
from tg_durak.storage.connection import Connection, Session, lock
from tg_durak.storage.results import RATINGS_LOCK
from tg_durak.storage.users import Users

TOMBSTONES_FROM = -(2**53)   # the first tombstone is one below
_FORGOTTEN = "forgotten"     # meta: how many people were forgotten (the last tombstone's number)
_PRUNED_DAY = "pruned_day"   # meta: the last day (days since the epoch) whose pruning was claimed
_PRUNE_LOCK = "tg_durak prune"
_ENDED = (TableStatus.FINISHED, TableStatus.ABORTED)
PRUNE_BATCH = 500   # tables whose logs one transaction deletes
# Rows about the person alone, deleted with him: when he last came and his @username, his place
# in the quick games' queue (with his name), the groups whose lobbies he asked to be told of.
_HIS_OWN = ("visits", "quick_queue", "lobby_subscribers")


def is_tombstone(user_id: int) -> bool:
    """Whether a seat's or result's user id stands for a forgotten person."""
    return user_id <= TOMBSTONES_FROM


class Privacy:
    def __init__(self, connection: Connection, users: Users) -> None:
        self._connection = connection
        self._users = users

    async def forget(self, user_id: int) -> int | None:
        """Erase the person `user_id`, in one transaction: the tombstone his tables now name
        (None: none named him). Call it once his seat at an open table is given up: his seats
        at running tables turn into the tombstone's too."""
        async with self._connection.transaction() as db:
            # The ratings' lock: a table ending meanwhile reads his rating before or after
            # the change, never half of it; forgetting is serialised by it too.
            await lock(db, self._connection.dialect, RATINGS_LOCK)
            tombstone = None
            if await _named(db, user_id):
                tombstone = await _next_tombstone(db)
                await _rekey(db, user_id, tombstone)
            await db.execute("DELETE FROM messages WHERE viewer = ?", (user_id,))
            for table in _HIS_OWN:
                await db.execute(f"DELETE FROM {table} WHERE user_id = ?", (user_id,))
            await db.execute("DELETE FROM users WHERE id = ?", (user_id,))
        self._users.drop(user_id)
        return tombstone

    async def claim_pruning(self, day: int) -> bool:
        """Whether this process is the one to prune on `day` (days since the epoch): the first
        to ask for it; the others, and later asks of the same day, are refused."""
        async with self._connection.transaction() as db:
            await lock(db, self._connection.dialect, _PRUNE_LOCK)
            row = await db.fetchone("SELECT value FROM meta WHERE key = ?", (_PRUNED_DAY,))
            if row is not None and loads(row[0], f"meta {_PRUNED_DAY!r}") >= day:
                return False
            await db.execute(
                "INSERT INTO meta (key, value) VALUES (?, ?)"
                " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (_PRUNED_DAY, dumps(day)))
        return True

    async def prune(self, before: float) -> int:
        """Delete the action logs of the tables that ended before `before` (wall time), a batch
        of tables a transaction; their snapshots, seats and results stay. The number pruned."""
        pruned = 0
        while True:
            async with self._connection.transaction() as db:
                rows = await db.fetchall(
                    "SELECT id FROM tables WHERE status IN (?, ?) AND finished_at < ?"
                    " AND pruned_at IS NULL ORDER BY id LIMIT ?",
                    (*_ENDED, before, PRUNE_BATCH))
                ids = [(table_id,) for (table_id,) in rows]
                await db.executemany("DELETE FROM actions WHERE table_id = ?", ids)
                now = time.time()
                await db.executemany("UPDATE tables SET pruned_at = ? WHERE id = ?",
                                     [(now, table_id) for (table_id,) in ids])
            pruned += len(ids)
            if len(ids) < PRUNE_BATCH:
                return pruned

    async def pruned(self) -> set[int]:
        """The tables whose logs were pruned (the check reads them without their logs)."""
        async with self._connection.reading() as db:
            return {table_id for (table_id,) in await db.fetchall(
                "SELECT id FROM tables WHERE pruned_at IS NOT NULL")}


async def _named(db: Session, user_id: int) -> bool:
    """Whether any table's record names the person: a seat, a result, a hosted lobby."""
    return await db.fetchone(
        "SELECT 1 FROM seats WHERE user_id = ? UNION ALL SELECT 1 FROM results WHERE user_id = ?"
        " UNION ALL SELECT 1 FROM tables WHERE host_id = ? LIMIT 1",
        (user_id, user_id, user_id)) is not None


async def _next_tombstone(db: Session) -> int:
    row = await db.fetchone("SELECT value FROM meta WHERE key = ?", (_FORGOTTEN,))
    count = 1 + (0 if row is None else loads(row[0], f"meta {_FORGOTTEN!r}"))
    await db.execute(
        "INSERT INTO meta (key, value) VALUES (?, ?)"
        " ON CONFLICT (key) DO UPDATE SET value = excluded.value", (_FORGOTTEN, dumps(count)))
    return TOMBSTONES_FROM - count


async def _rekey(db: Session, user_id: int, tombstone: int) -> None:
    """Every table's record of the person names the tombstone instead, his name emptied."""
    await db.execute("UPDATE seats SET user_id = ?, name = '' WHERE user_id = ?",
                     (tombstone, user_id))
    # A private table's chat is its person's private chat (the check holds them equal).
    await db.execute("UPDATE tables SET chat_id = ? WHERE kind = 'private' AND chat_id = ?",
                     (tombstone, user_id))
    await db.execute("UPDATE tables SET host_id = ? WHERE host_id = ?", (tombstone, user_id))
    # rating_history refers to results by (table, person): moved out and back around the
    # results' change, as neither database defers that check here.
    history = await db.fetchall(
        "SELECT table_id, mu, sigma FROM rating_history WHERE user_id = ?", (user_id,))
    await db.execute("DELETE FROM rating_history WHERE user_id = ?", (user_id,))
    await db.execute("UPDATE results SET user_id = ? WHERE user_id = ?", (tombstone, user_id))
    await db.executemany(
        "INSERT INTO rating_history (table_id, user_id, mu, sigma) VALUES (?, ?, ?, ?)",
        [(table_id, tombstone, mu, sigma) for table_id, mu, sigma in history])
    await db.execute("UPDATE ratings SET user_id = ? WHERE user_id = ?", (tombstone, user_id))
