"""Finished tables' results and the people's ratings: written with a table's end, read back as
stats, records and a chat's table of players, rebuilt from the results on demand."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Mapping, Sequence

from tg_durak.play.ratings import Outcome, Rating, Result
from tg_durak.play.rows import PlayerRecord, Rebuilt, Standing, Stats
from tg_durak.storage.columns import check, member
from tg_durak.storage.connection import Connection, Session, lock, placeholders

# `results r` moved the ratings (a result without a history row was a game against computers).
_RATED = ("EXISTS (SELECT 1 FROM rating_history h"
          " WHERE h.table_id = r.table_id AND h.user_id = r.user_id)")
RATINGS_LOCK = "tg_durak ratings"
# A finished table's results and everyone's current ratings -> the new ratings (empty: not rated).
RateTable = Callable[[Sequence[Result], Mapping[int, Rating]], Mapping[int, Rating]]


def check_results(results: Iterable[Result]) -> None:
    for _, outcome, _ in results:
        check(outcome, tuple(Outcome), "outcome")


class Results:
    """Results and ratings. ``rate`` moves the ratings when a table ends (None: it moves none)."""

    def __init__(self, connection: Connection, rate: RateTable | None) -> None:
        self._connection = connection
        self._rate = rate

    async def write(self, db: Session, table_id: int, results: Sequence[Result],
                    now: float) -> None:
        """Inside the caller's transaction: store each person's (user_id, outcome, place) and,
        the first time the table ends, move the ratings (read here, so a concurrent game or a
        rebuild cannot be overwritten)."""
        await db.executemany(
            "INSERT INTO results (table_id, user_id, outcome, place, rating_order)"
            " VALUES (?, ?, ?, ?, ?) ON CONFLICT (table_id, user_id) DO UPDATE"
            " SET outcome = excluded.outcome, place = excluded.place,"
            " rating_order = excluded.rating_order",
            [(table_id, user_id, outcome, place, order)
             for order, (user_id, outcome, place) in enumerate(sorted(results))],
        )
        if self._rate is None or not results:
            return
        # Two tables ending at once with the same person must not both read his old rating.
        await lock(db, self._connection.dialect, RATINGS_LOCK)
        if await db.fetchone("SELECT 1 FROM rating_history WHERE table_id = ? LIMIT 1",
                             (table_id,)):
            return
        current = await _ratings(db, [user_id for user_id, _, _ in results])
        new = self._rate(results, current)
        await _write_history(db, table_id, new)
        await _write_ratings(db, new, now)

    @staticmethod
    async def of_table(db: Session, table_id: int) -> list[Result]:
        """Inside the caller's reading: the table's results, by user id."""
        rows = await db.fetchall(
            "SELECT user_id, outcome, place FROM results WHERE table_id = ? ORDER BY user_id",
            (table_id,))
        return [(user_id, _outcome(table_id, user_id, outcome), place)
                for user_id, outcome, place in rows]

    async def stats(self, user_id: int) -> Stats:
        """All the user's games, rated or not."""
        async with self._connection.reading() as db:
            return await _stats(db, user_id)

    async def player_record(self, user_id: int) -> PlayerRecord:
        async with self._connection.reading() as db:
            return PlayerRecord(
                people=await _stats(db, user_id, f"AND {_RATED}"),
                computers=await _stats(db, user_id, f"AND NOT {_RATED}"),
                rating=(await _ratings(db, [user_id])).get(user_id),
            )

    async def ratings(self, user_ids: Sequence[int]) -> dict[int, Rating]:
        """The ratings of those of ``user_ids`` who have played a rated game."""
        async with self._connection.reading() as db:
            return await _ratings(db, user_ids)

    async def leaderboard(self, chat_id: int, user_id: int, top: int = 10) -> list[Standing]:
        """The chat's table of players: everyone with a rated game at a table of the chat, best
        first, the first ``top`` of them and ``user_id``'s own line wherever it stands."""
        async with self._connection.reading() as db:
            rows = await db.fetchall(
                "WITH players AS (SELECT DISTINCT h.user_id FROM rating_history h"
                "  JOIN tables t ON t.id = h.table_id WHERE t.chat_id = ?),"
                " ranked AS (SELECT r.user_id, r.shown, r.games, ROW_NUMBER() OVER"
                "  (ORDER BY r.shown DESC, r.mu DESC, r.user_id) AS position"
                "  FROM ratings r JOIN players USING (user_id))"
                " SELECT position, user_id,"
                "  COALESCE((SELECT name FROM users u WHERE u.id = ranked.user_id),"
                "   (SELECT name FROM seats s WHERE s.user_id = ranked.user_id"
                "    ORDER BY s.table_id DESC LIMIT 1), ''),"
                "  shown, games,"
                f"  (SELECT COUNT(*) FROM results r WHERE r.user_id = ranked.user_id AND {_RATED}"
                "   AND r.outcome = 'durak')"
                " FROM ranked WHERE position <= ? OR user_id = ? ORDER BY position",
                (chat_id, top, user_id),
            )
        return [Standing(*row) for row in rows]

    async def rebuild_ratings(self) -> Rebuilt:
        """Recompute every rating from the stored results, replacing the old ones at once.

        Tables are replayed in the order they closed (then by id), as they were rated one by
        one, each table's people in the order they were rated in, so the result equals what the
        games wrote as they finished.
        """
        if self._rate is None:
            raise ValueError("the store was opened without a rating function")
        async with self._connection.transaction() as db:
            await lock(db, self._connection.dialect, RATINGS_LOCK)
            rows = await db.fetchall(
                "SELECT r.table_id, t.finished_at, r.user_id, r.outcome, r.place"
                " FROM results r JOIN tables t ON t.id = r.table_id"
                " ORDER BY t.finished_at, t.id, r.rating_order"
            )
            await db.execute("DELETE FROM rating_history")
            await db.execute("DELETE FROM ratings")
            current: dict[int, Rating] = {}
            tables = 0
            for (table_id, finished_at), group in itertools.groupby(rows, lambda r: r[:2]):
                new = _rated_in_order(self._rate, [
                    (user_id, _outcome(table_id, user_id, outcome), place)
                    for *_, user_id, outcome, place in group], current)
                if new:
                    tables += 1
                    current.update(new)
                    await _write_history(db, table_id, new)
                    await _write_ratings(db, new, finished_at)
        return Rebuilt(people=len(current), tables=tables)


def _rated_in_order(rate: RateTable, results: list[Result],
                    current: Mapping[int, Rating]) -> Mapping[int, Rating]:
    """`rate` for a table's `results` in the order it was first rated in (its `rating_order`):
    `rate` takes people in user id order, so each is rated under his position as his id (a
    forgotten person's tombstone sorts elsewhere than his id did)."""
    ids = [user_id for user_id, _, _ in results]
    new = rate([(position, outcome, place) for position, (_, outcome, place)
                in enumerate(results)],
               {position: current[user_id] for position, user_id in enumerate(ids)
                if user_id in current})
    return {ids[position]: rating for position, rating in new.items()}


async def _stats(db: Session, user_id: int, where: str = "") -> Stats:
    rows = await db.fetchall(
        f"SELECT outcome, COUNT(*) FROM results r WHERE user_id = ? {where} GROUP BY outcome",
        (user_id,),
    )
    counts = dict(rows)
    return Stats(
        games=sum(counts.values()),
        durak=counts.get(Outcome.DURAK, 0),
        safe=counts.get(Outcome.SAFE, 0),
        draws=counts.get(Outcome.DRAW, 0),
        resigned=counts.get(Outcome.RESIGNED, 0),
    )


def _outcome(table_id: int, user_id: int, stored: str) -> Outcome:
    return member(Outcome, stored, f"outcome of user {user_id} at table {table_id}")


async def _ratings(db: Session, user_ids: Sequence[int]) -> dict[int, Rating]:
    if not user_ids:
        return {}   # "IN ()" is SQLite's alone
    rows = await db.fetchall(
        "SELECT user_id, mu, sigma, games FROM ratings"
        f" WHERE user_id IN ({placeholders(user_ids)})",
        tuple(user_ids),
    )
    return {user_id: Rating(mu, sigma, games) for user_id, mu, sigma, games in rows}


async def _write_history(db: Session, table_id: int, ratings: Mapping[int, Rating]) -> None:
    await db.executemany(
        "INSERT INTO rating_history (table_id, user_id, mu, sigma) VALUES (?, ?, ?, ?)",
        [(table_id, user_id, r.mu, r.sigma) for user_id, r in ratings.items()],
    )


async def _write_ratings(db: Session, ratings: Mapping[int, Rating], now: float) -> None:
    await db.executemany(
        "INSERT INTO ratings (user_id, mu, sigma, games, shown, updated_at)"
        " VALUES (?, ?, ?, ?, ?, ?)"
        " ON CONFLICT (user_id) DO UPDATE SET mu = excluded.mu, sigma = excluded.sigma,"
        " games = excluded.games, shown = excluded.shown, updated_at = excluded.updated_at",
        [(user_id, r.mu, r.sigma, r.games, r.shown, now) for user_id, r in ratings.items()],
    )
