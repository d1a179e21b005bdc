"""Standings through the real bot: two rated group games, then /stats and /top in the group and
/stats in private. The games are written as TableService writes a finished table (the store's
`record` with the ratings), over a second connection to the running bot's database."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.bot.conftest import ALICE, BOB
from tg_durak.emulator import FakeTelegram
from tg_durak.play.rows import SeatRow, TableChange
from tg_durak.storage import Store

CAT = 503
GROUP = -1001234567890
CAT_SEAT_NAME = "<Cat> & co"  # user input: must reach the group escaped, as written


@pytest.fixture
def group(tg: FakeTelegram) -> int:
    tg.add_user(CAT, "Cat")
    tg.add_group(GROUP, "Durak club", members=[ALICE, BOB, CAT], creator=ALICE)
    return GROUP


async def finished(store: Store, chat: int, results: list[tuple[int, str, int]],
                   computers: int = 0) -> None:
    names = {ALICE: "Alice", BOB: "Bob", CAT: CAT_SEAT_NAME}
    seats = [SeatRow(i, uid, names[uid]) for i, (uid, _, _) in enumerate(results)]
    seats += [SeatRow(len(seats) + i, None, "", "easy") for i in range(computers)]
    kind = "group" if chat < 0 else "private"
    table = await store.tables.create(chat, kind, "running", {}, seats, {"deal": 1})
    await store.tables.record(TableChange(table.id, 0, [{"last": 1}], {"deal": 1}, "finished",
                                          results))


async def two_group_games_and_one_alone(store: Store) -> None:
    await finished(store, GROUP, [(ALICE, "safe", 1), (BOB, "durak", 2)])
    await finished(store, GROUP, [(CAT, "safe", 1), (ALICE, "safe", 3), (BOB, "durak", 4)],
                   computers=1)
    await finished(store, ALICE, [(ALICE, "durak", 2)], computers=1)


async def answer(tg: FakeTelegram, user: int, text: str, chat: int) -> str:
    before = len(tg.messages(chat))
    await tg.send_text(user, text, chat_id=chat)
    await tg.wait_for(lambda: len(tg.messages(chat)) > before)
    [reply] = tg.messages(chat)[before:]
    return reply.text


async def test_stats_and_top_in_the_group_and_stats_in_private(
    tg: FakeTelegram, group: int, bot, store: Store
) -> None:
    await two_group_games_and_one_alone(store)
    ratings = await store.results.ratings([ALICE, BOB, CAT])
    order = sorted(ratings, key=lambda uid: -ratings[uid].shown)
    assert order[-1] == BOB  # the durak of both games
    shown = {ALICE: "Alice", BOB: "Bob", CAT: CAT_SEAT_NAME}

    table = await answer(tg, ALICE, "/stats", group)
    lines = table.split("\n")
    assert lines[0] == "Players of this chat (games against people)"
    games = {ALICE: "2 games", BOB: "2 games", CAT: "1 game"}
    durak = {ALICE: "0%", BOB: "100%", CAT: "0%"}
    expected = [f"{i}. {shown[uid]} — {ratings[uid].shown} · {games[uid]} · durak {durak[uid]}"
                for i, uid in enumerate(order, 1)]
    assert [line.removeprefix("▸ ") for line in lines[1:]] == expected
    assert [line.startswith("▸ ") for line in lines[1:]] == [uid == ALICE for uid in order]

    # Privacy mode sends a command to a group as /cmd@bot; one for another bot gets no answer
    # (checked after a later command's answer: updates are taken in order).
    before = len(tg.messages(group))
    await tg.send_text(BOB, "/top@some_other_bot", chat_id=group)
    await tg.wait_for(lambda: not tg.pending_updates)
    top = await answer(tg, BOB, "/top@durak_test_bot", group)
    assert len(tg.messages(group)) == before + 1
    assert top.split("\n")[1:] == [
        f"▸ {line}" if uid == BOB else line for uid, line in zip(order, expected, strict=True)
    ]

    own = await answer(tg, ALICE, "/stats", ALICE)
    assert own.startswith(f"Your rating: {ratings[ALICE].shown}\n\n")
    assert "Against people: 2 games, durak 0 times (0%), draws: 0" in own
    assert "Against computers: 1 game\nSafe: 0 · Durak: 1 · Draws: 0 · Resigned: 0" in own

    other = await answer(tg, ALICE, "/play", group)  # any other group command: the private chat
    assert "private chat" in other


async def test_a_chat_without_rated_games(tg: FakeTelegram, group: int, bot) -> None:
    assert "No games between people" in await answer(tg, CAT, "/top", group)
    first = await answer(tg, CAT, "/stats", CAT)
    assert first.startswith("Your rating: none yet.")
    assert "Against people" not in first and "Against computers: 0 games" in first


async def test_the_command_line_rebuild(tg: FakeTelegram, group: int, bot, store: Store,
                                        db_path: str) -> None:
    await two_group_games_and_one_alone(store)
    written = await store.results.ratings([ALICE, BOB, CAT])
    done = subprocess.run([sys.executable, "-m", "tg_durak", "ratings", "--rebuild"],
                          env={**os.environ, "DURAK_DB": db_path}, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"rated 3 people over 2 tables in {db_path}"
    assert await store.results.ratings([ALICE, BOB, CAT]) == written
    position = sorted(written.values(), key=lambda r: -r.shown).index(written[CAT]) + 1
    table = await answer(tg, CAT, "/top", group)
    # Cat has written to the bot now: his Telegram name replaces the one at his seat.
    assert f"▸ {position}. Cat — {written[CAT].shown} · 1 game" in table
