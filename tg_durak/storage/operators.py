"""The operators' side of the database: bans, maintenance, the operator log, who used the bot
lately (visits), broadcasts and their recipients, each process's heartbeat."""

from __future__ import annotations

from collections.abc import Sequence

from tg_durak.play.operators import (
    BroadcastRow,
    BroadcastStatus,
    OperatorAction,
    Progress,
    RecipientState,
)
from tg_durak.storage.columns import dumps, loads, member
from tg_durak.storage.connection import Connection, only_row, placeholders

MAINTENANCE_KEY = "maintenance_until"
_BROADCAST_COLUMNS = "id, operator, text, status, message_id"
# A maintenance without an end is stored with this "until": later than any clock.
FOREVER = float("inf")
_NO_END = 1e300   # what FOREVER is stored as: JSON has no infinity


def _broadcast(row: Sequence) -> BroadcastRow:
    return BroadcastRow(row[0], row[1], row[2],
                        member(BroadcastStatus, row[3], f"status of broadcast {row[0]}"), row[4])


class Operators:
    def __init__(self, connection: Connection) -> None:
        self._connection = connection

    # ---- the log ---------------------------------------------------------------------------

    async def record(self, operator: int, action: OperatorAction, at: float) -> None:
        """What an operator did that changed nothing (he looked at /opstats)."""
        async with self._connection.statement() as db:
            await db.execute(
                "INSERT INTO operator_log (operator, action, at) VALUES (?, ?, ?)",
                (operator, action.value, at))

    async def logged(self, limit: int = 100) -> list[tuple[int, OperatorAction, dict, float]]:
        """The latest entries, the newest first: (operator, action, detail, at)."""
        async with self._connection.reading() as db:
            rows = await db.fetchall(
                "SELECT operator, action, detail, at FROM operator_log ORDER BY id DESC LIMIT ?",
                (limit,))
        return [(op, member(OperatorAction, action, "an operator's action"),
                 loads(detail, "an operator's log entry"), at)
                for op, action, detail, at in rows]

    # ---- bans and maintenance --------------------------------------------------------------

    async def ban(self, user_id: int, by: int, at: float) -> bool:
        """Whether he was not banned before."""
        async with self._connection.transaction() as db:
            added = await db.execute(
                "INSERT INTO bans (user_id, by_id, at) VALUES (?, ?, ?)"
                " ON CONFLICT (user_id) DO NOTHING", (user_id, by, at))
            await db.execute(
                "INSERT INTO operator_log (operator, action, detail, at) VALUES (?, ?, ?, ?)",
                (by, OperatorAction.BAN.value, dumps({"user": user_id}), at))
        return added > 0

    async def unban(self, user_id: int, by: int, at: float) -> bool:
        """Whether he was banned."""
        async with self._connection.transaction() as db:
            removed = await db.execute("DELETE FROM bans WHERE user_id = ?", (user_id,))
            await db.execute(
                "INSERT INTO operator_log (operator, action, detail, at) VALUES (?, ?, ?, ?)",
                (by, OperatorAction.UNBAN.value, dumps({"user": user_id}), at))
        return removed > 0

    async def banned(self) -> frozenset[int]:
        async with self._connection.reading() as db:
            rows = await db.fetchall("SELECT user_id FROM bans")
        return frozenset(user_id for (user_id,) in rows)

    async def set_maintenance(self, until: float | None, by: int, at: float) -> None:
        """Maintenance until `until` (FOREVER: until switched off), or off (None)."""
        action = OperatorAction.MAINTENANCE_OFF if until is None else \
            OperatorAction.MAINTENANCE_ON
        stored = None if until is None else min(until, _NO_END)
        async with self._connection.transaction() as db:
            if stored is None:
                await db.execute("DELETE FROM meta WHERE key = ?", (MAINTENANCE_KEY,))
            else:
                await db.execute(
                    "INSERT INTO meta (key, value) VALUES (?, ?)"
                    " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                    (MAINTENANCE_KEY, dumps(stored)))
            detail = {} if until is None or until == FOREVER else {"until": until}
            await db.execute(
                "INSERT INTO operator_log (operator, action, detail, at) VALUES (?, ?, ?, ?)",
                (by, action.value, dumps(detail), at))

    async def maintenance_until(self) -> float | None:
        """When maintenance ends (FOREVER: when switched off); None: not set."""
        async with self._connection.reading() as db:
            row = await db.fetchone("SELECT value FROM meta WHERE key = ?", (MAINTENANCE_KEY,))
        if row is None:
            return None
        until = loads(row[0], "the maintenance's end")
        if not isinstance(until, int | float):
            return None
        return FOREVER if until >= _NO_END else float(until)

    # ---- who used the bot ------------------------------------------------------------------

    async def seen(self, user_id: int, username: str | None, at: float) -> None:
        async with self._connection.statement() as db:
            await db.execute(
                "INSERT INTO visits (user_id, username, seen_at) VALUES (?, ?, ?)"
                " ON CONFLICT (user_id) DO UPDATE"
                " SET username = excluded.username, seen_at = excluded.seen_at",
                (user_id, username.lower() if username else None, at))

    async def by_username(self, username: str) -> int | None:
        """The person last seen with this @username (without the @)."""
        async with self._connection.reading() as db:
            row = await db.fetchone(
                "SELECT user_id FROM visits WHERE username = ? ORDER BY seen_at DESC LIMIT 1",
                (username.lower(),))
        return None if row is None else row[0]

    async def audience(self, since: float) -> int:
        """How many a broadcast would reach now (see `draft`)."""
        async with self._connection.reading() as db:
            (count,) = await only_row(db, f"SELECT COUNT(*) FROM ({_AUDIENCE}) AS a", (since,))
        return int(count)

    async def players_since(self, since: float) -> int:
        """People seated at a table that changed since `since`."""
        async with self._connection.reading() as db:
            (count,) = await only_row(
                db, "SELECT COUNT(DISTINCT s.user_id) FROM seats s JOIN tables t"
                " ON t.id = s.table_id WHERE t.updated_at >= ? AND s.user_id IS NOT NULL",
                (since,))
        return int(count)

    async def tables_by_status(self) -> dict[str, int]:
        async with self._connection.reading() as db:
            rows = await db.fetchall(
                "SELECT status, COUNT(*) FROM tables WHERE status IN ('lobby', 'running')"
                " GROUP BY status")
        return {status: int(count) for status, count in rows}

    # ---- broadcasts ------------------------------------------------------------------------

    async def draft(self, operator: int, text: str, at: float) -> BroadcastRow:
        async with self._connection.transaction() as db:
            row = await only_row(
                db, "INSERT INTO broadcasts (operator, text, status, created_at)"
                f" VALUES (?, ?, 'draft', ?) RETURNING {_BROADCAST_COLUMNS}",
                (operator, text, at))
            await db.execute(
                "INSERT INTO operator_log (operator, action, detail, at) VALUES (?, ?, ?, ?)",
                (operator, OperatorAction.BROADCAST_DRAFT.value, dumps({"broadcast": row[0]}),
                 at))
        return _broadcast(row)

    async def broadcast(self, broadcast_id: int) -> BroadcastRow | None:
        async with self._connection.reading() as db:
            row = await db.fetchone(
                f"SELECT {_BROADCAST_COLUMNS} FROM broadcasts WHERE id = ?", (broadcast_id,))
        return None if row is None else _broadcast(row)

    async def confirm(self, broadcast_id: int, operator: int, since: float, at: float,
                      message_id: int | None = None) -> int | None:
        """The draft goes out: its recipients are everyone reachable seen since `since` and
        not banned, taken now; its progress shows in the operator's message `message_id`. Their
        number; None if it was no draft of this operator's."""
        async with self._connection.transaction() as db:
            changed = await db.execute(
                "UPDATE broadcasts SET status = 'sending', message_id = ? WHERE id = ?"
                " AND operator = ? AND status = 'draft'", (message_id, broadcast_id, operator))
            if not changed:
                return None
            count = await db.execute(
                "INSERT INTO broadcast_recipients (broadcast_id, user_id)"
                f" SELECT ?, a.user_id FROM ({_AUDIENCE}) AS a", (broadcast_id, since))
            await db.execute(
                "INSERT INTO operator_log (operator, action, detail, at) VALUES (?, ?, ?, ?)",
                (operator, OperatorAction.BROADCAST_SEND.value,
                 dumps({"broadcast": broadcast_id, "recipients": count}), at))
        return count

    async def end(self, broadcast_id: int, operator: int, status: BroadcastStatus,
                  action: OperatorAction, at: float) -> bool:
        """A draft cancelled, or a broadcast under way stopped, by its operator."""
        before = "draft" if status == BroadcastStatus.CANCELLED else "sending"
        async with self._connection.transaction() as db:
            changed = await db.execute(
                "UPDATE broadcasts SET status = ? WHERE id = ? AND status = ?",
                (status.value, broadcast_id, before))
            if changed:
                await db.execute(
                    "INSERT INTO operator_log (operator, action, detail, at)"
                    " VALUES (?, ?, ?, ?)",
                    (operator, action.value, dumps({"broadcast": broadcast_id}), at))
        return changed > 0

    async def under_way(self) -> list[BroadcastRow]:
        async with self._connection.reading() as db:
            rows = await db.fetchall(
                f"SELECT {_BROADCAST_COLUMNS} FROM broadcasts WHERE status = 'sending'"
                " ORDER BY id")
        return [_broadcast(row) for row in rows]

    async def take_lease(self, broadcast_id: int, owner: str, now: float,
                         seconds: float) -> bool:
        """This process sends the broadcast for the next `seconds` (if nobody else does). A
        lease taken from another process (it died, or stopped) leaves what it had in flight
        'unknown': it may have gone, so it never goes again."""
        async with self._connection.transaction() as db:
            row = await db.fetchone(
                "SELECT lease_owner FROM broadcasts WHERE id = ? AND status = 'sending'"
                " AND (lease_owner IS NULL OR lease_owner = ? OR lease_until < ?)"
                f"{self._connection.dialect.row_lock}", (broadcast_id, owner, now))
            if row is None:
                return False
            if row[0] != owner:
                await db.execute(
                    "UPDATE broadcast_recipients SET state = 'unknown'"
                    " WHERE broadcast_id = ? AND state = 'sending'", (broadcast_id,))
            await db.execute(
                "UPDATE broadcasts SET lease_owner = ?, lease_until = ? WHERE id = ?",
                (owner, now + seconds, broadcast_id))
        return True

    async def release(self, broadcast_id: int, owner: str) -> None:
        """This process stops sending (it stops): another may take over at once."""
        async with self._connection.statement() as db:
            await db.execute(
                "UPDATE broadcasts SET lease_until = 0 WHERE id = ? AND lease_owner = ?",
                (broadcast_id, owner))

    async def next_batch(self, broadcast_id: int, owner: str, now: float, lease: float,
                         done: dict[int, RecipientState], size: int) -> list[int] | None:
        """One step of sending, in one transaction: the outcome of the last batch stored,
        the lease renewed, and up to `size` waiting recipients marked 'sending' and returned
        (empty: nobody waits, the broadcast is done; `size` 0 only stores the outcome). None:
        the lease was lost, or the broadcast stopped; the outcomes are stored all the same (a
        row another process took over is 'unknown' already and stays so)."""
        async with self._connection.transaction() as db:
            renewed = await db.execute(
                "UPDATE broadcasts SET lease_until = ? WHERE id = ? AND lease_owner = ?"
                " AND status = 'sending'", (now + lease, broadcast_id, owner))
            for state in (RecipientState.SENT, RecipientState.FAILED):
                ids = [user_id for user_id, got in done.items() if got == state]
                if ids:
                    await db.execute(
                        f"UPDATE broadcast_recipients SET state = ? WHERE broadcast_id = ?"
                        f" AND state = 'sending' AND user_id IN ({placeholders(ids)})",
                        (state.value, broadcast_id, *ids))
            if not renewed:
                return None
            lock = self._connection.dialect.row_lock
            rows = await db.fetchall(
                "SELECT user_id FROM broadcast_recipients WHERE broadcast_id = ?"
                f" AND state = 'waiting' ORDER BY user_id LIMIT ?{lock}",
                (broadcast_id, size))
            ids = [user_id for (user_id,) in rows]
            if ids:
                await db.execute(
                    "UPDATE broadcast_recipients SET state = 'sending' WHERE broadcast_id = ?"
                    f" AND user_id IN ({placeholders(ids)})", (broadcast_id, *ids))
            elif size:
                await db.execute(
                    "UPDATE broadcasts SET status = 'done', lease_until = 0 WHERE id = ?",
                    (broadcast_id,))
        return ids

    async def progress(self, broadcast_id: int) -> Progress | None:
        async with self._connection.reading() as db:
            row = await db.fetchone(
                f"SELECT {_BROADCAST_COLUMNS} FROM broadcasts WHERE id = ?", (broadcast_id,))
            if row is None:
                return None
            rows = await db.fetchall(
                "SELECT state, COUNT(*) FROM broadcast_recipients WHERE broadcast_id = ?"
                " GROUP BY state", (broadcast_id,))
        counts = {member(RecipientState, state, "a recipient's state"): int(n)
                  for state, n in rows}
        return Progress(_broadcast(row), counts)

    async def recipients(self, broadcast_id: int) -> dict[int, RecipientState]:
        async with self._connection.reading() as db:
            rows = await db.fetchall(
                "SELECT user_id, state FROM broadcast_recipients WHERE broadcast_id = ?",
                (broadcast_id,))
        return {user_id: member(RecipientState, state, "a recipient's state")
                for user_id, state in rows}

    # ---- processes -------------------------------------------------------------------------

    async def beat(self, process: str, host: str, pid: int, started_at: float,
                   at: float) -> None:
        async with self._connection.statement() as db:
            await db.execute(
                "INSERT INTO processes (id, host, pid, started_at, alive_at)"
                " VALUES (?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE"
                " SET alive_at = excluded.alive_at", (process, host, pid, started_at, at))

    async def stopped(self, process: str) -> None:
        async with self._connection.statement() as db:
            await db.execute("DELETE FROM processes WHERE id = ?", (process,))

    async def alive(self, since: float) -> int:
        """Processes whose heartbeat is later than `since`; those silent for a day are
        forgotten."""
        async with self._connection.transaction() as db:
            await db.execute("DELETE FROM processes WHERE alive_at < ?", (since - 86400,))
            (count,) = await only_row(
                db, "SELECT COUNT(*) FROM processes WHERE alive_at >= ?", (since,))
        return int(count)


# Reachable people seen since the parameter, not banned, the operators' order of sending.
_AUDIENCE = ("SELECT u.id AS user_id FROM users u JOIN visits v ON v.user_id = u.id"
             " WHERE u.reachable = 1 AND v.seen_at >= ?"
             " AND NOT EXISTS (SELECT 1 FROM bans b WHERE b.user_id = u.id)")
