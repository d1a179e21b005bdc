"""Checking a database without changing it: each table against its own log and the rules.

`check(store)` reads every table (one consistent reading per table, so a running bot may go on
writing) and returns what is wrong, one line per problem: a snapshot that is not the replay of
its log (a table whose log DURAK_KEEP_DAYS pruned is read from its snapshot alone), cards lost
or doubled, seats that do not fit the game, results that do not fit its end, lobbies that are
not lobbies, a person seated at two open tables, and whatever the database itself finds wrong
(SQLite's integrity check of its file; PostgreSQL's catalog: invalid indexes,
constraints or triggers off, an id sequence behind its table). Nothing here writes.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field

from engine import MAX_PLAYERS, Game
from engine.cards import deck_mask
from tg_durak.play.options import LEVELS
from tg_durak.play.ratings import Outcome
from tg_durak.play.rows import SeatRow, SeatStatus, TableKind, TableRecord, TableRow, TableStatus
from tg_durak.storage import CorruptRow, Store
from tg_durak.storage.tables import OPEN


@dataclass(frozen=True)
class Problem:
    """One thing wrong in the database; `table_id` None: the file or its schema."""

    table_id: int | None
    text: str

    def __str__(self) -> str:
        return self.text if self.table_id is None else f"table {self.table_id}: {self.text}"


@dataclass
class Report:
    tables: int = 0
    problems: list[Problem] = field(default_factory=list)


async def check(store: Store) -> Report:
    """Every problem in the database `store` reads (open it read-only beside a running bot)."""
    report = Report()
    if store.pending:
        report.problems.append(Problem(None, f"the schema lacks {store.pending} migration(s) of "
                                             "this bot: start the bot once to upgrade it"))
        return report
    report.problems += [Problem(None, f"{store.engine}: {line}")
                        for line in await store.integrity_problems()]
    seated: defaultdict[int, list[int]] = defaultdict(list)   # person -> his open tables
    pruned = await store.privacy.pruned()
    for table_id in await store.tables.ids():
        report.tables += 1
        try:
            record = await store.tables.whole(table_id)
        except CorruptRow as exc:
            report.problems.append(Problem(table_id, f"unreadable: {exc}"))
            continue
        if record is None:
            continue   # deleted since the listing
        report.problems += [Problem(table_id, text)
                            for text in table_problems(record, table_id in pruned)]
        if record.row.status in OPEN:
            for user_id, _ in _people(record.row):
                seated[user_id].append(table_id)
    for user_id, tables in seated.items():
        if len(tables) > 1:
            report.problems.append(Problem(
                None, f"user {user_id} is seated at open tables {', '.join(map(str, tables))}"))
    return report


def table_problems(record: TableRecord, pruned: bool = False) -> list[str]:
    """What is wrong with one table (empty: nothing). `pruned`: its log was deleted
    (DURAK_KEEP_DAYS), so its snapshot is read as its end without a replay."""
    row, snapshot = record.row, record.row.snapshot
    if snapshot is None:
        return list(_lobby_problems(record))
    problems = list(_seat_problems(row, snapshot))
    if pruned:
        problems += _pruned_problems(record)
    elif row.version != len(record.log):
        problems.append(f"version {row.version} but {len(record.log)} log entries")
    try:
        stored = Game.from_dict({**snapshot, "log": [] if pruned else record.log})
    except ValueError as exc:
        return [*problems, f"the snapshot cannot be read: {exc}"]
    if not pruned:
        problems += _replay_problems(snapshot, record.log)
    problems += _card_problems(stored)
    problems += _result_problems(record, stored)
    return problems


def _people(row: TableRow) -> list[tuple[int, SeatRow]]:
    """The persons still playing at the table: their user ids and seats."""
    return [(s.user_id, s) for s in row.seats
            if s.user_id is not None and s.status == SeatStatus.PLAYING]


def _lobby_problems(record: TableRecord) -> Iterator[str]:
    """A table without a snapshot: a lobby, or one that closed before it started."""
    row = record.row
    if row.kind != TableKind.GROUP or row.status not in (TableStatus.LOBBY, TableStatus.ABORTED):
        yield f"a {row.kind} table that is {row.status} has no snapshot"
        return
    if record.log or row.version:
        yield "a lobby has moves in its log"
    if record.results:
        yield "a lobby has results"
    if row.status == TableStatus.LOBBY:
        for what, value in (("host", row.host_id), ("invite", row.invite),
                            ("expiry", row.expires_at)):
            if value is None:
                yield f"the lobby has no {what}"
    if len(row.seats) > MAX_PLAYERS:
        yield f"the lobby has {len(row.seats)} seats, more than {MAX_PLAYERS}"
    people = [s.user_id for s in row.seats if s.user_id is not None]
    if len(people) != len(set(people)):
        yield "a person has two seats in the lobby"


def _seat_problems(row: TableRow, snapshot: dict) -> Iterator[str]:
    players = snapshot.get("rules", {}).get("players")
    numbers = [s.seat for s in row.seats]
    if numbers != list(range(len(numbers))) or len(numbers) != players:
        yield f"seats {numbers} for a game of {players} players"
    people = [s for s in row.seats if s.user_id is not None]
    if len({s.user_id for s in people}) != len(people):
        yield "a person has two seats"
    for s in row.seats:
        if s.user_id is None and s.level not in LEVELS:
            yield f"seat {s.seat}: a computer player of unknown strength {s.level!r}"
    if (row.kind == TableKind.PRIVATE
            and [(s.seat, s.user_id) for s in people] != [(0, row.chat_id)]):
        yield "a private table must seat its chat's person in seat 0 and nobody else"


def _pruned_problems(record: TableRecord) -> Iterator[str]:
    """A pruned table ended before its log went, and all of its log went."""
    if record.row.status not in (TableStatus.FINISHED, TableStatus.ABORTED):
        yield f"the log of a {record.row.status} table was pruned"
    if record.log:
        yield f"its log was pruned but {len(record.log)} entries remain"


def _replay_problems(snapshot: dict, log: list) -> Iterator[str]:
    try:
        replayed = Game.replay({**snapshot, "log": log})
    except Exception as exc:   # whatever a damaged log makes the engine raise
        yield f"its log does not replay: {type(exc).__name__}: {exc}"
        return
    # Through JSON, as the store keeps it: a tuple and a list are the same snapshot.
    state = json.loads(json.dumps(replayed.to_dict(log=False)))
    if state != snapshot:
        keys = sorted(k for k in set(state) | set(snapshot) if state.get(k) != snapshot.get(k))
        if keys == ["state"]:
            keys = sorted(k for k in set(state["state"]) | set(snapshot["state"])
                          if state["state"].get(k) != snapshot["state"].get(k))
        yield f"the snapshot is not the replay of its log (differs in {', '.join(keys)})"


def _card_problems(game: Game) -> Iterator[str]:
    """Every card of the deck in exactly one place (from_dict already refuses a card in two)."""
    places = [*game.hands, game.discard, *(1 << c for c in game.stock),
              *(1 << c for c in game.attacks + game.defences if c >= 0)]
    found = 0
    for mask in places:
        found |= mask
    missing = bin(deck_mask(game.rules.deck) & ~found).count("1")
    if missing:
        yield f"{missing} card(s) of the deck are nowhere"


def _result_problems(record: TableRecord, game: Game) -> Iterator[str]:
    row, results = record.row, record.results
    persons = {s.user_id: s for s in row.seats if s.user_id is not None}
    strangers = sorted({u for u, _, _ in results} - set(persons))
    if strangers:
        yield f"results for people without a seat: {strangers}"
    if row.status == TableStatus.RUNNING:
        if results:
            yield "a running table has results"
        if game.is_over:
            yield "the game is over but the table is still running"
    elif row.status == TableStatus.FINISHED:   # aborted: its results name who was there
        yield from _finished_problems(record, game, persons)


def _finished_problems(record: TableRecord, game: Game, persons: dict[int, SeatRow]
                       ) -> Iterator[str]:
    row, results = record.row, record.results
    if not game.is_over and any(s.seat in game.active_seats for _, s in _people(row)):
        yield "the table is finished but the game is not over and people still play"
    outcomes = {user_id: outcome for user_id, outcome, _ in results}
    if set(outcomes) != set(persons):
        yield f"results for {sorted(outcomes)}, but the people seated are {sorted(persons)}"
    for user_id, outcome in outcomes.items():
        if user_id in persons:
            yield from _outcome_problems(user_id, outcome, persons[user_id], game)
    places = [place for _, _, place in results]
    if any(not 1 <= place <= len(row.seats) for place in places):
        yield f"places {sorted(places)} out of 1..{len(row.seats)}"


def _outcome_problems(user_id: int, outcome: Outcome, seat: SeatRow,
                      game: Game) -> Iterator[str]:
    """A person's outcome against the game's end: resigned exactly when he left his seat, the
    durak exactly when his seat is, a draw only in a game that ended without one."""
    if (outcome == Outcome.RESIGNED) != (seat.status != SeatStatus.PLAYING):
        yield f"user {user_id} is {outcome} but his seat is {seat.status}"
    elif outcome != Outcome.RESIGNED and (outcome == Outcome.DURAK) != (seat.seat == game.durak):
        yield f"user {user_id} is {outcome} but the durak is seat {game.durak}"
    elif outcome == Outcome.DRAW and not (game.is_over and game.durak is None):
        yield f"user {user_id} drew a game that has no draw"
