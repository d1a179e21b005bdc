"""Group games end to end: the real bot over HTTP against the emulator, people tapping in a group
and in their private chats, from /new to the result and Rematch."""

from __future__ import annotations

import re
import sqlite3

from tests.bot.conftest import ALICE, BOB, game_message
from tests.bot.groups import (
    GROUP,
    REMATCH,
    add_computer,
    join,
    lobby_message,
    open_lobby,
    play_all,
    seated,
    shows_result,
    start,
    wait_started,
)
from tg_durak.app import BotApp
from tg_durak.emulator import FakeTelegram
from tg_durak.storage import Store

CAT = 503


def _places(text: str) -> list[str]:
    """The names on the "Places:" line in order, the durak (named after them) last."""
    line = next(line for line in text.splitlines() if line.startswith("Places: "))
    safe, _, durak = line.removeprefix("Places: ").partition(" — durak: ")
    return [re.sub(r"^\d+\. ", "", name) for name in safe.split(", ")] + (
        [durak] if durak else [])


async def test_three_people_play_a_whole_group_game_one_joining_through_the_link(
        tg: FakeTelegram, bot: BotApp, store: Store, db_path: str) -> None:
    tg.add_user(CAT, "Cat", language_code="ru")
    tg.add_group(GROUP, "Durak club", members=[ALICE, BOB, CAT], creator=ALICE)
    for person in (ALICE, BOB):   # Cat has never opened the bot
        await tg.send_text(person, "/start")
    lobby = await open_lobby(tg, ALICE)
    assert seated(tg, lobby, "Alice")   # the host, whom the bot can reach, sits at once
    await join(tg, BOB, lobby, "Bob")
    bob_waiting = await tg.wait_for(lambda: tg.last_message(BOB).text.startswith("🃏")
                                    and tg.last_message(BOB))

    answer = await tg.press(CAT, tg.message(GROUP, lobby.message_id), "✋ Join")
    assert answer.url.startswith("https://t.me/durak_test_bot?start=")
    assert not seated(tg, lobby, "Cat")
    await tg.follow_url(CAT)
    await tg.wait_for(lambda: seated(tg, lobby, "Cat"))
    cat_waiting = await tg.wait_for(lambda: tg.last_message(CAT).text.startswith("🃏")
                                    and tg.last_message(CAT))
    assert cat_waiting.text.startswith("🃏 Ты за столом")   # in his own language

    await start(tg, ALICE, lobby, [ALICE, BOB, CAT])
    assert game_message(tg, BOB).message_id == bob_waiting.message_id   # the same message
    assert game_message(tg, CAT).message_id == cat_waiting.message_id
    assert game_message(tg, CAT).text.startswith("Козырь")
    assert "Trump" in tg.message(GROUP, lobby.message_id).text   # the lobby, edited

    finals = await play_all(tg, [ALICE, BOB, CAT], seed=3, languages={CAT: "ru"})
    await tg.wait_for(lambda: shows_result(tg, lobby), timeout=60)
    text = tg.message(GROUP, lobby.message_id).text
    assert lobby_message(tg).message_id == lobby.message_id   # one group message all along

    table = await store.tables.for_user(ALICE, ("finished",))
    records = [await store.results.player_record(p) for p in (ALICE, BOB, CAT)]
    assert all(r.people.games == 1 for r in records)   # rated: a game between people
    names = {s.user_id: s.name for s in table.seats}
    outcomes = _results(db_path, table.id)
    assert set(outcomes) == {ALICE, BOB, CAT}
    durak = [names[u] for u, outcome in outcomes.items() if outcome == "durak"]
    if durak:
        assert f"{durak[0]} is the durak!" in text
        assert _places(text)[-1] == durak[0]
    else:
        assert "A draw" in text
    assert sorted(_places(text)) == sorted(names.values())
    assert all(message.message_id == game_message(tg, p).message_id
               for p, message in finals.items())


def _results(db_path: str, table_id: int) -> dict[int, str]:
    with sqlite3.connect(db_path) as db:
        return dict(db.execute("SELECT user_id, outcome FROM results WHERE table_id = ?",
                               (table_id,)).fetchall())


async def test_two_people_and_two_computers_then_rematch(tg: FakeTelegram, bot: BotApp) -> None:
    tg.add_group(GROUP, "Durak club", members=[ALICE, BOB], creator=ALICE)
    for person in (ALICE, BOB):
        await tg.send_text(person, "/start")
    lobby = await open_lobby(tg, ALICE)
    await tg.press(ALICE, lobby, "⚙ Settings")
    await tg.wait_for(lambda: any(b.text.endswith("24 cards")
                                  for row in tg.message(GROUP, lobby.message_id).buttons
                                  for b in row))
    await tg.press(ALICE, tg.message(GROUP, lobby.message_id), "24 cards")
    await tg.wait_for(lambda: "24 cards" in tg.message(GROUP, lobby.message_id).text)
    await tg.press(ALICE, tg.message(GROUP, lobby.message_id), "⬅ Back")
    await tg.wait_for(lambda: any(b.text == "✋ Join" for row in tg.message(
        GROUP, lobby.message_id).buttons for b in row))
    await join(tg, BOB, lobby, "Bob")
    await add_computer(tg, BOB, lobby, "Easy")
    # the fourth seat of four fills: the table starts by itself
    await tg.press(ALICE, tg.message(GROUP, lobby.message_id), "+🤖 Hard")
    await wait_started(tg, lobby, [ALICE, BOB])
    group_text = tg.message(GROUP, lobby.message_id).text
    # Named as the lobby listed them, with their strength (issue 16).
    assert "🤖 Computer 1 (Easy)" in group_text and "🤖 Computer 2 (Hard)" in group_text

    await play_all(tg, [ALICE, BOB], seed=5)
    await tg.wait_for(lambda: shows_result(tg, lobby), timeout=60)
    assert "Places:" in tg.message(GROUP, lobby.message_id).text

    answer = await tg.press(BOB, tg.message(GROUP, lobby.message_id), REMATCH)
    assert not answer.show_alert, answer.text
    rematch = await tg.wait_for(lambda: (lambda m: m is not None
                                         and m.message_id != lobby.message_id and m)(
        lobby_message(tg)))
    text = rematch.text
    assert "host: Bob" in text and "24 cards" in text and "Seats taken: 4 of 4" in text
    assert all(seated(tg, rematch, name) for name in ("Alice", "Bob"))
    assert text.count("🤖 Computer 1 (Easy)") == 1 and text.count("🤖 Computer 2 (Hard)") == 1
    again = await tg.press(ALICE, tg.message(GROUP, lobby.message_id), REMATCH)
    assert again.text == "This chat already has an open table: here it is."
    old_games = {p: game_message(tg, p).message_id for p in (ALICE, BOB)}
    await start(tg, BOB, rematch, [])   # Bob hosts the rematch
    await tg.wait_for(lambda: all(game_message(tg, p).message_id != old_games[p]
                                  and not game_message(tg, p).text.startswith("🃏")
                                  for p in (ALICE, BOB)))
