"""Games stored as the bot stores them, for the tests of what reads a database afterwards
(check, copy, backup, privacy, restart): played at random, one transaction per change, the
results written with the last one; and a small database holding each kind of table."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

from engine import Game, Rules
from tg_durak.play.rows import SeatRow, TableChange
from tg_durak.storage import Store

START = 1_700_000_000.0
GROUP = -100500
ANN, BOB = 7, 8


def outcome(game: Game, seat: int) -> tuple[str, int]:
    """The seat's result row as the bot writes it: outcome and place."""
    order = game.finished_order
    place = order.index(seat) + 1 if seat in order else len(order) + 1
    if seat == game.durak:
        return "durak", place
    return ("draw" if game.is_over and game.durak is None else "safe"), place


async def played(store: Store, people: Sequence[int], seed: int, *, computers: int = 0,
                 steps: int = 10_000, chat: int = GROUP,
                 names: Mapping[int, str] | None = None) -> int:
    """A table of `people` and `computers` played at random for up to `steps` changes (to its
    end by default); one person alone plays in his private chat, several in group `chat`.
    Names default to "Person <id>"."""
    game = Game.new(Rules(players=len(people) + computers), seed, START)
    names = names or {}
    seats = [SeatRow(i, user, names.get(user, f"Person {user}")) for i, user in enumerate(people)]
    seats += [SeatRow(len(people) + i, None, "", "normal") for i in range(computers)]
    private = len(people) == 1
    row = await store.tables.create(people[0] if private else chat,
                                    "private" if private else "group", "running", {}, seats,
                                    game.to_dict(log=False))
    rng, now = random.Random(seed), START
    while not game.is_over and game.version < steps:
        old, now = game.version, now + 0.5
        acting = game.acting_seats
        if acting and rng.random() < 0.9:
            seat = rng.choice(acting)
            game.apply(seat, rng.choice(game.legal_actions(seat)), now)
        else:
            now = max(now, game.next_deadline)
            game.advance(now)
        results = ([(user, *outcome(game, seat)) for seat, user in enumerate(people)]
                   if game.is_over else [])
        await store.tables.record(TableChange(
            row.id, old, [Game.entry_to_json(e) for e in game.log[old:]],
            game.to_dict(log=False), "finished" if game.is_over else "running", results))
    return row.id


async def sound_database(db_path: str) -> dict[str, int]:
    """A finished game, a running one, an open lobby and a cancelled one."""
    store = await Store.open(db_path)
    try:
        finished = await played(store, [ANN], seed=3, computers=1)
        running = await played(store, [BOB], seed=4, computers=1, steps=12)
        lobby = await store.lobbies.create(-100, ANN + 100, {}, invite="abc", expires_at=START,
                                           language="en")
        await store.lobbies.add_seat(lobby.id, ANN + 100, "Cid", None, 6)
        await store.lobbies.add_seat(lobby.id, None, "", "hard", 6)
        cancelled = await store.lobbies.create(-200, ANN + 200, {}, invite="def",
                                               expires_at=START, language="ru")
        await store.lobbies.close(cancelled.id)
    finally:
        await store.close()
    return {"finished": finished, "running": running, "lobby": lobby.id}
