"""/privacy and /forgetme end to end: the real bot over HTTP against the emulator.

A person forgets himself in the middle of a group game: a computer plays his seat to the end,
and afterwards no row of any table holds his name or @username, `check` is clean, and
`ratings --rebuild` gives everyone else the ratings they had. A stale, forged or someone else's
confirmation erases nothing.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
from dataclasses import replace

from tests.bot.conftest import game_message, settings_for
from tests.bot.groups import (
    GROUP,
    join,
    open_lobby,
    play_all,
    shows_result,
    start,
)
from tests.helpers.stored_games import played
from tests.store.helpers import raw, table_names
from tg_durak.app import BotApp
from tg_durak.emulator import FakeTelegram
from tg_durak.ops.pruning import DAY
from tg_durak.play.ratings import rate
from tg_durak.render.privacy import ForgetVerb
from tg_durak.storage import Store
from tg_durak.storage.privacy import is_tombstone
from tg_durak.telegram.handlers.privacy import ANSWER_SECONDS, signature

ANN, BEN, CAT = 611, 612, 613
ANN_NAME, ANN_USERNAME = "Annabel Quince", "annabel_q"
YES = "🗑 Yes, forget me"


def holding(db_path: str, needle: str) -> list[str]:
    """Every row of every table with a text column that holds `needle` (any case)."""
    found = []
    for table in sorted(table_names(db_path)):
        for row in raw(db_path, f"SELECT * FROM {table}"):
            if any(isinstance(v, str) and needle.lower() in v.lower() for v in row):
                found.append(f"{table}: {row}")
    return found


async def tool(*args: str) -> subprocess.CompletedProcess:
    return await asyncio.to_thread(subprocess.run, [sys.executable, "-m", "tg_durak", *args],
                                   capture_output=True, text=True, timeout=120)


async def ratings(store: Store, people: list[int]) -> dict[int, tuple[float, float, int]]:
    return {u: (r.mu, r.sigma, r.games) for u, r in (await store.results.ratings(people)).items()}


async def a_group_game(tg: FakeTelegram, host: int, others: list[int]):
    lobby = await open_lobby(tg, host)
    for person in others:
        await join(tg, person, lobby, tg.state.users[person].first_name)
    await start(tg, host, lobby, [host, *others])
    return lobby


async def ask_to_forget(tg: FakeTelegram, user_id: int):
    await tg.send_text(user_id, "/forgetme")
    return await tg.wait_for(lambda: (m := tg.last_message(user_id)) is not None
                             and m.text.startswith("Erase your name") and m)


async def test_a_person_forgets_himself_mid_game_and_nobody_elses_record_changes(
        tg: FakeTelegram, bot: BotApp, store: Store, db_path: str) -> None:
    tg.add_user(ANN, ANN_NAME, language_code="en", username=ANN_USERNAME)
    tg.add_user(BEN, "Ben", language_code="en", username="ben_b")
    tg.add_user(CAT, "Cat", language_code="ru")
    tg.add_group(GROUP, "Durak club", members=[ANN, BEN, CAT], creator=ANN)
    for person in (ANN, BEN, CAT):   # greeted: the bot may write to each (a host is seated)
        await tg.send_text(person, "/start")
        await tg.wait_for(lambda p=person: tg.last_message(p))
    # A first game to its end: everyone has a rating that Ann's played against.
    first = await a_group_game(tg, ANN, [BEN, CAT])
    await play_all(tg, [ANN, BEN, CAT], seed=2, languages={CAT: "ru"})
    await tg.wait_for(lambda: shows_result(tg, first), timeout=60)
    others_before = await ratings(store, [BEN, CAT])
    assert set(others_before) == {BEN, CAT}

    # The second: Ann asks to be forgotten while she plays.
    second = await a_group_game(tg, BEN, [ANN, CAT])
    table_id = (await store.tables.for_user(BEN)).id
    question = await ask_to_forget(tg, ANN)
    answer = await tg.press(ANN, question, YES)
    assert not answer.show_alert
    await tg.wait_for(lambda: tg.message(ANN, question.message_id).text.startswith(
        "Done: your data is erased"))
    assert not tg.message(ANN, question.message_id).buttons
    assert await store.users.get(ANN) is None
    assert await ratings(store, [BEN, CAT]) == others_before   # erasing moved nobody's rating
    await tg.wait_for(lambda: "a former player" in tg.message(GROUP, second.message_id).text,
                      what="the group's table naming her seat a former player")
    assert "Annabel" not in tg.message(GROUP, second.message_id).text

    # Her seat plays on as a computer; Ben and Cat play to the end.
    await play_all(tg, [BEN, CAT], seed=4, languages={CAT: "ru"})
    await tg.wait_for(lambda: shows_result(tg, second), timeout=60)
    assert "Annabel" not in tg.message(GROUP, second.message_id).text
    row = await store.tables.get(table_id)
    assert row.status == "finished"
    tombstones = [s.user_id for s in row.seats if s.user_id is not None and is_tombstone(s.user_id)]
    assert len(tombstones) == 1 and row.seats[0].user_id == BEN
    outcomes = dict(raw(db_path, "SELECT user_id, outcome FROM results WHERE table_id = ?",
                        (table_id,)))
    assert outcomes[tombstones[0]] == "resigned" and ANN not in outcomes

    assert holding(db_path, "Annabel") == [] and holding(db_path, ANN_USERNAME) == []
    assert holding(db_path, "ben_b") != []   # the scan does find a name that is kept
    checked = await tool("check", "--db", db_path)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    others_after = await ratings(store, [BEN, CAT])
    rebuilt = await tool("ratings", "--rebuild", "--db", db_path)
    assert rebuilt.returncode == 0, rebuilt.stderr
    assert await ratings(store, [BEN, CAT]) == others_after
    assert (await tool("check", "--db", db_path)).returncode == 0
    # His own record starts afresh, should he come back.
    await tg.send_text(ANN, "/stats")
    await tg.wait_for(lambda: tg.last_message(ANN).message_id != question.message_id)
    record = await store.results.player_record(ANN)
    assert record.rating is None and record.people.games == record.computers.games == 0


async def test_privacy_tells_what_is_kept_in_the_readers_language(
        tg: FakeTelegram, bot: BotApp) -> None:
    tg.add_user(BEN, "Ben", language_code="en")
    tg.add_user(CAT, "Cat", language_code="uk")
    await tg.send_text(BEN, "/privacy")
    text = await tg.wait_for(lambda: (m := tg.last_message(BEN)) is not None and m.text)
    assert text.startswith("What I keep about you")
    assert "/forgetme" in text and "as long as the bot runs" in text
    await tg.send_text(CAT, "/privacy")
    text = await tg.wait_for(lambda: (m := tg.last_message(CAT)) is not None and m.text)
    assert text.startswith("Що я про тебе зберігаю")
    await tg.send_text(BEN, "/help")
    await tg.wait_for(lambda: "/privacy" in tg.last_message(BEN).text)
    assert "privacy" in [c.command for c in tg.commands(language_code="en")]


async def test_a_stale_forged_or_cancelled_answer_erases_nothing(
        tg: FakeTelegram, bot: BotApp, store: Store) -> None:
    tg.add_user(ANN, ANN_NAME, language_code="en", username=ANN_USERNAME)
    tg.add_user(BEN, "Ben", language_code="en")
    for person in (ANN, BEN):
        await tg.send_text(person, "/start")
    question = await ask_to_forget(tg, ANN)
    now = int(time.time())
    forged = [
        f"fg:y:{ANN}:{now}:AAAAAAAAAAAAAAAA",                                  # not signed
        f"fg:y:{ANN}:{now - ANSWER_SECONDS - 5}:"
        f"{signature(tg.token, ForgetVerb.YES, ANN, now - ANSWER_SECONDS - 5)}",  # too old
        f"fg:y:{ANN}:{now}:{signature(tg.token, ForgetVerb.NO, ANN, now)}",    # No's sign
        "fg:y:x:1:2",                                                          # garbage
    ]
    for data in forged:
        answer = await tg.press(ANN, question, data.encode())
        assert answer.show_alert, data
    # Ben taps an answer signed for Ann (in his own chat).
    bens = tg.last_message(BEN)
    answer = await tg.press(BEN, bens, (
        f"fg:y:{ANN}:{now}:{signature(tg.token, ForgetVerb.YES, ANN, now)}").encode())
    assert answer.show_alert
    assert answer.text == "This question is out of date: send /forgetme again."
    assert await store.users.get(ANN) is not None and await store.users.get(BEN) is not None

    await tg.press(ANN, question, "Cancel")
    await tg.wait_for(lambda: tg.message(ANN, question.message_id).text == "Nothing was erased.")
    assert (await store.users.get(ANN)).name == ANN_NAME
    assert game_message(tg, ANN) is None


async def test_the_bot_prunes_old_logs_when_it_starts_with_keep_days(
        tg: FakeTelegram, db_path: str) -> None:
    store = await Store.open(db_path, rate=rate)
    try:
        old = await played(store, [ANN, BEN], seed=6)
        recent = await played(store, [CAT], seed=7, computers=1)
        raw(db_path, "UPDATE tables SET finished_at = ? WHERE id = ?",
            (time.time() - 31 * DAY, old))
        app = BotApp(replace(settings_for(tg, db_path), keep_days=30))
        await app.start()
        try:
            await tg.wait_for(lambda: raw(db_path, "SELECT pruned_at FROM tables WHERE id = ?",
                                          (old,)) != [(None,)], what="the old table pruned")
        finally:
            await app.stop()
        assert await store.tables.log(old) == []
        assert len(await store.tables.log(recent)) == (await store.tables.get(recent)).version
        checked = await tool("check", "--db", db_path)
        assert checked.returncode == 0, checked.stdout + checked.stderr
        assert raw(db_path, "SELECT COUNT(*) FROM results WHERE table_id = ?", (old,)) == [(2,)]
    finally:
        await store.close()
