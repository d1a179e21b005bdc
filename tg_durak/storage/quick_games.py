"""Quick games: the queue of people waiting for a table, their reports, and who wants to hear of
a group's next lobby (/notify).

The queue is shared by every process on the database: a table is claimed from it in one
transaction that holds the game's lock, reads who waits, lets the matching choose
(`tg_durak.play.matching`), takes each chosen person's seat lock (the one a lobby's seat and a
private game take) and reads that they are still free, deletes them from the queue and writes
their running table, so two processes never seat one person twice and a crash leaves either the
queue or the table.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from tg_durak.play.matching import (
    QUICK_CHAT,
    Pair,
    QueueEntry,
    QuickGame,
    ReportReason,
    blocked_pairs,
)
from tg_durak.play.rows import SeatRow, TableRow
from tg_durak.storage.columns import check, dumps, read_table, write_seats
from tg_durak.storage.connection import Connection, Session, lock, only_row, placeholders
from tg_durak.storage.errors import CorruptRow

# Chooses who sits down: the queue's user ids in order and the pairs who must not meet.
Pick = Callable[[Sequence[int], frozenset[Pair]], tuple[int, ...] | None]
_COLUMNS = "user_id, game, name, chat_id, message_id, joined_at, wait_until"
# Waiting, still reachable and not seated at an open table meanwhile (a group's lobby, say) ...
_PLAYABLE = ("EXISTS (SELECT 1 FROM users u WHERE u.id = q.user_id AND u.reachable = 1)"
             " AND NOT EXISTS (SELECT 1 FROM seats s JOIN tables t ON t.id = s.table_id"
             "  WHERE s.user_id = q.user_id AND s.status = 'playing'"
             "  AND t.status IN ('lobby', 'running'))")
# ... and not banned by an operator (storage/operators.py's bans): who may be seated now.
_FREE = f"{_PLAYABLE} AND NOT EXISTS (SELECT 1 FROM bans b WHERE b.user_id = q.user_id)"


def _entry(row: Sequence) -> QueueEntry:
    user_id, game, name, chat_id, message_id, joined_at, wait_until = row
    try:
        quick = QuickGame.of_key(game)
    except ValueError as exc:
        raise CorruptRow(f"the quick game of user {user_id} is not a game: {game!r}") from exc
    return QueueEntry(user_id, quick, name, chat_id, message_id, joined_at, wait_until)


class QuickQueue:
    def __init__(self, connection: Connection) -> None:
        self._connection = connection
        self._dialect = connection.dialect

    # ---- the queue ---------------------------------------------------------------------------

    async def join(self, entry: QueueEntry) -> None:
        """He waits for `entry.game` (a person waits for one game: a new choice replaces his
        old one, and he queues anew)."""
        async with self._connection.transaction() as db:
            await db.execute(
                f"INSERT INTO quick_queue ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)"
                " ON CONFLICT (user_id) DO UPDATE SET game = excluded.game,"
                " name = excluded.name, chat_id = excluded.chat_id,"
                " message_id = excluded.message_id, joined_at = excluded.joined_at,"
                " wait_until = excluded.wait_until",
                (entry.user_id, entry.game.key, entry.name, entry.chat_id, entry.message_id,
                 entry.joined_at, entry.wait_until))

    async def leave(self, user_id: int) -> QueueEntry | None:
        """He leaves the queue: his entry, or None if he was not waiting (any more)."""
        async with self._connection.transaction() as db:
            row = await db.fetchone(
                f"DELETE FROM quick_queue WHERE user_id = ? RETURNING {_COLUMNS}", (user_id,))
        return None if row is None else _entry(row)

    async def entry(self, user_id: int) -> QueueEntry | None:
        async with self._connection.reading() as db:
            row = await db.fetchone(f"SELECT {_COLUMNS} FROM quick_queue WHERE user_id = ?",
                                    (user_id,))
        return None if row is None else _entry(row)

    async def waiting(self) -> list[QueueEntry]:
        """Everyone waiting, the earliest first (a corrupt row is left out: it can never be
        matched, and its person may join again)."""
        async with self._connection.reading() as db:
            rows = await db.fetchall(
                f"SELECT {_COLUMNS} FROM quick_queue ORDER BY joined_at, user_id")
        found = []
        for row in rows:
            try:
                found.append(_entry(row))
            except CorruptRow:
                continue
        return found

    async def unplayable(self) -> list[int]:
        """Those waiting who cannot be seated now: the bot may no longer write to them (they
        blocked it), or they sit at another open table meanwhile (a group's lobby, a private
        game). They are let go of the queue (tables/quick_games.py)."""
        async with self._connection.reading() as db:
            rows = await db.fetchall(
                f"SELECT q.user_id FROM quick_queue q WHERE NOT ({_PLAYABLE})"
                " ORDER BY q.user_id")
        return [user_id for (user_id,) in rows]

    async def claim(self, game: QuickGame, pick: Pick, *, snapshot: dict, level: str,
                    language: str) -> tuple[TableRow, list[QueueEntry]] | None:
        """One table for the people `pick` chooses among those waiting for `game`: they leave
        the queue and sit at a new running table (computers, of `level`, in the seats left) in
        the same transaction. None if `pick` chooses nobody."""
        async with self._connection.transaction() as db:
            await lock(db, self._dialect, f"tg_durak quick {game.key}")
            rows = await db.fetchall(
                f"SELECT {', '.join('q.' + c for c in _COLUMNS.split(', '))}"
                f" FROM quick_queue q WHERE q.game = ? AND {_FREE}"
                " ORDER BY q.joined_at, q.user_id", (game.key,))
            entries = {row[0]: _entry(row) for row in rows}
            queue = list(entries)
            chosen = pick(queue, await _blocked(db, queue))
            if not chosen:
                return None
            # One who sits down at a lobby or starts a private game meanwhile holds his seat's
            # lock until that seat is stored (storage/lobbies.py, tables.py): wait for it, then
            # seat nobody who is not free now (the queue's next round goes on without him).
            # Nothing is written before.
            for user_id in sorted(chosen):
                await lock(db, self._dialect, f"tg_durak seat {user_id}")
            (free,) = await only_row(
                db, "SELECT COUNT(*) FROM quick_queue q"
                    f" WHERE q.user_id IN ({placeholders(chosen)}) AND {_FREE}", chosen)
            if free != len(chosen):
                return None
            await db.execute(
                f"DELETE FROM quick_queue WHERE user_id IN ({placeholders(chosen)})", chosen)
            seats = [SeatRow(i, user_id, entries[user_id].name, None)
                     for i, user_id in enumerate(chosen)]
            seats += [SeatRow(i, None, "", level) for i in range(len(chosen), game.players)]
            now = time.time()
            (table_id,) = await only_row(
                db,
                "INSERT INTO tables (chat_id, kind, status, options, snapshot, version,"
                " created_at, updated_at, wake_at, language)"
                " VALUES (?, 'group', 'running', ?, ?, 0, ?, ?, ?, ?) RETURNING id",
                (QUICK_CHAT, dumps(game.options.to_dict()), dumps(snapshot), now, now, now,
                 language))
            await write_seats(db, table_id, seats)
            table = await read_table(db, table_id)
        assert table is not None
        return table, [entries[user_id] for user_id in chosen]

    # ---- reports -----------------------------------------------------------------------------

    async def report(self, reporter: int, reported: int, table_id: int,
                     reason: ReportReason) -> bool:
        """Store a report (one per pair and table; False if it was made already)."""
        check(reason, tuple(ReportReason), "reason")
        async with self._connection.transaction() as db:
            changed = await db.execute(
                "INSERT INTO quick_reports (reporter, reported, table_id, reason, at)"
                " VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                (reporter, reported, table_id, reason, time.time()))
        return changed == 1

    async def reports(self, user_id: int | None = None) -> dict[ReportReason, int]:
        """How many reports were made (against `user_id`, if given), by reason: the operator's
        count."""
        where, params = ("WHERE reported = ?", (user_id,)) if user_id is not None else ("", ())
        async with self._connection.reading() as db:
            rows = await db.fetchall(
                f"SELECT reason, COUNT(*) FROM quick_reports {where} GROUP BY reason", params)
        return {ReportReason(reason): n for reason, n in rows if reason in set(ReportReason)}

    # ---- /notify -----------------------------------------------------------------------------

    async def subscribe(self, chat_id: int, user_id: int, title: str) -> bool:
        """He hears of the chat's next lobby; False if he did already (the title is kept up
        to date either way)."""
        async with self._connection.transaction() as db:
            known = await db.fetchone(
                "SELECT 1 FROM lobby_subscribers WHERE chat_id = ? AND user_id = ?",
                (chat_id, user_id))
            await db.execute(
                "INSERT INTO lobby_subscribers (chat_id, user_id, title, since)"
                " VALUES (?, ?, ?, ?) ON CONFLICT (chat_id, user_id) DO UPDATE"
                " SET title = excluded.title", (chat_id, user_id, title, time.time()))
        return known is None

    async def unsubscribe(self, chat_id: int, user_id: int) -> bool:
        """He hears of no more lobbies there; False if he did not."""
        async with self._connection.transaction() as db:
            changed = await db.execute(
                "DELETE FROM lobby_subscribers WHERE chat_id = ? AND user_id = ?",
                (chat_id, user_id))
        return changed == 1

    async def to_tell(self, chat_id: int, lobby_id: int) -> list[tuple[int, str]]:
        """The chat's subscribers the bot may write to and has not told of `lobby_id` yet, with
        the chat's title, marked told in the same statement (each hears of a lobby once,
        whichever process asks)."""
        async with self._connection.transaction() as db:
            rows = await db.fetchall(
                "UPDATE lobby_subscribers SET told = ? WHERE chat_id = ?"
                " AND (told IS NULL OR told < ?)"
                " AND user_id IN (SELECT id FROM users WHERE reachable = 1)"
                " RETURNING user_id, title",
                (lobby_id, chat_id, lobby_id))
        return sorted((user_id, title) for user_id, title in rows)


async def _blocked(db: Session, user_ids: Sequence[int]) -> frozenset[Pair]:
    """The pairs among `user_ids` of whom one reported the other."""
    if len(user_ids) < 2:
        return frozenset()
    marks = placeholders(user_ids)
    rows = await db.fetchall(
        "SELECT reporter, reported FROM quick_reports"
        f" WHERE reporter IN ({marks}) AND reported IN ({marks})", (*user_ids, *user_ids))
    return blocked_pairs(rows)
