"""People who wrote to the bot: name, language, settings, whether the bot may write to them."""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any

from tg_durak.play.rows import UserRow
from tg_durak.storage.columns import dumps, loads_dict
from tg_durak.storage.connection import Connection, Session, placeholders

_IDS_PER_QUERY = 500   # SQLite takes at most 999 parameters a statement in older builds
_USERS_KEPT = 10_000   # users' rows kept in memory, the least recently used forgotten first
_COLUMNS = "id, name, language, settings, reachable"


def _user_row(row: Sequence) -> UserRow:
    """A UserRow from the `_COLUMNS` of one row."""
    settings = loads_dict(row[3], f"settings of user {row[0]}")
    return UserRow(id=row[0], name=row[1], language=row[2], settings=settings,
                   reachable=bool(row[4]))


async def _read(db: Session, user_id: int) -> UserRow | None:
    row = await db.fetchone(f"SELECT {_COLUMNS} FROM users WHERE id = ?", (user_id,))
    return None if row is None else _user_row(row)


class Users:
    """The users' rows, the recently used kept in memory.

    Every update reads its sender's row (language, settings), and every screen drawn for a
    person reads his language (`cached`, no I/O): rows are read once, changed only through the
    methods below (this process is the only one writing users), which keep the cached row as
    written, under the connection's lock, so no write slips in between. (On PostgreSQL's pool two
    writes of one person at once are not ordered with their cache updates: for several
    processes the cache is yet to be validated against the stored row, issue 18.)
    """

    def __init__(self, connection: Connection) -> None:
        self._connection = connection
        self._rows: OrderedDict[int, UserRow] = OrderedDict()   # least recently used first

    def cached(self, user_id: int) -> UserRow | None:
        """The user's row if it is in memory (no I/O); None: not known here yet."""
        user = self._rows.get(user_id)
        if user is not None:
            self._rows.move_to_end(user_id)
        return user

    def drop(self, user_id: int) -> None:
        """Forget the cached row of a person whose row was deleted (storage/privacy.py)."""
        self._rows.pop(user_id, None)

    def _keep(self, user: UserRow) -> None:
        self._rows[user.id] = user
        self._rows.move_to_end(user.id)
        if len(self._rows) > _USERS_KEPT:
            self._rows.popitem(last=False)

    async def get(self, user_id: int) -> UserRow | None:
        cached = self.cached(user_id)
        if cached is not None:
            return cached
        async with self._connection.reading() as db:
            user = await _read(db, user_id)
            if user is not None:
                self._keep(user)
        return user

    async def many(self, user_ids: Iterable[int]) -> dict[int, UserRow]:
        """The rows of those of `user_ids` who exist, read in a few queries at most."""
        found = {}
        missing = []
        for user_id in dict.fromkeys(user_ids):
            cached = self.cached(user_id)
            if cached is None:
                missing.append(user_id)
            else:
                found[user_id] = cached
        async with self._connection.reading() as db:
            for start in range(0, len(missing), _IDS_PER_QUERY):
                ids = missing[start:start + _IDS_PER_QUERY]
                rows = await db.fetchall(
                    f"SELECT {_COLUMNS} FROM users WHERE id IN ({placeholders(ids)})", ids)
                for row in rows:
                    user = _user_row(row)
                    self._keep(user)
                    found[user.id] = user
        return found

    async def ensure(self, user_id: int, name: str, language: str | None = None) -> UserRow:
        """The user's row, created if new; the stored name follows their Telegram name, and
        ``language`` is stored if he has none yet (None: he keeps none)."""
        cached = self.cached(user_id)
        if (cached is not None and cached.name == name
                and (cached.language is not None or language is None)):
            return cached
        now = time.time()
        async with self._connection.transaction() as db:
            # RETURNING gives the row only if it was written; an unchanged one is read.
            row = await db.fetchone(
                "INSERT INTO users (id, name, language, settings, created_at, updated_at)"
                " VALUES (?, ?, ?, '{}', ?, ?)"
                " ON CONFLICT (id) DO UPDATE"
                " SET name = excluded.name, language = COALESCE(users.language, excluded.language),"
                " updated_at = excluded.updated_at"
                " WHERE users.name <> excluded.name"
                " OR (users.language IS NULL AND excluded.language IS NOT NULL)"
                f" RETURNING {_COLUMNS}",
                (user_id, name, language, now, now),
            )
            user = _user_row(row) if row is not None else await _read(db, user_id)
            assert user is not None
            self._keep(user)
        return user

    async def set_language(self, user_id: int, language: str) -> None:
        await self._update(user_id, "language", language, language=language)

    async def set_settings(self, user_id: int, settings: dict) -> None:
        await self._update(user_id, "settings", dumps(settings), settings=settings)

    async def set_reachable(self, user_id: int, reachable: bool) -> None:
        """Whether the bot may write to the user privately (unknown users are left alone)."""
        cached = self.cached(user_id)
        if cached is not None and cached.reachable == reachable:
            return
        async with self._connection.transaction() as db:
            await db.execute(
                "UPDATE users SET reachable = ?, updated_at = ? WHERE id = ? AND reachable <> ?",
                (int(reachable), time.time(), user_id, int(reachable)),
            )
            self._written(user_id, reachable=reachable)

    async def _update(self, user_id: int, column: str, value: object, **row: Any) -> None:
        """Write one column; `row`: the same change as the cached row spells it."""
        async with self._connection.transaction() as db:
            changed = await db.execute(
                f"UPDATE users SET {column} = ?, updated_at = ? WHERE id = ?",
                (value, time.time(), user_id),
            )
            if changed == 0:
                raise LookupError(f"user {user_id} does not exist")
            self._written(user_id, **row)

    def _written(self, user_id: int, **row: Any) -> None:
        """The cached row (if any) as the write just left it: a person's language stays known to
        the screens drawn for him, with no read."""
        cached = self._rows.get(user_id)
        if cached is not None:
            self._rows[user_id] = replace(cached, **row)
