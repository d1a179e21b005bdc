"""Quick games end to end against the emulator: people who wait for the same game get one
table; one alone starts with computers after his wait; the queue outlives a killed bot; /top of
the quick games; the report after one; one who sits down elsewhere leaves the queue."""

from __future__ import annotations

import asyncio
import signal
import subprocess

from tests.bot.conftest import ALICE, BOB, game_message, started_bot
from tests.bot.groups import GROUP, JOIN, open_lobby
from tg_durak.app import BotApp
from tg_durak.emulator import FakeTelegram
from tg_durak.emulator.models import Message
from tg_durak.play.matching import QUICK_CHAT, ReportReason
from tg_durak.play.rows import TableStatus
from tg_durak.render.quick_taps import ReportTap
from tg_durak.storage import Store

CAROL, DAN, EVE = 503, 504, 505
QUICK, FIND, LEAVE, WITH_COMPUTERS = ("👥 Quick game", "🔎 Find players", "✖ Leave the queue",
                                      "🤖 Start with computers")


def _has(message: Message | None, text: str) -> bool:
    return message is not None and any(b.text == text for row in message.buttons for b in row)


def quick_message(tg: FakeTelegram, user_id: int) -> Message | None:
    """The person's quick-game message: the newest that chooses, waits or found his table."""
    for m in reversed(tg.messages(user_id)):
        if any(_has(m, b) for b in (FIND, LEAVE, RU[FIND], "✖ Выйти из очереди")) \
                or "Table found" in m.text:
            return tg.message(m.chat_id, m.message_id)
    return None


RU = {QUICK: "👥 Быстрая игра", FIND: "🔎 Найти игроков", "s": "с"}


async def queue_up(tg: FakeTelegram, user_id: int, players: int, wait: int = 60,
                   words: dict[str, str] | None = None) -> Message:
    """/start, 👥 Quick game, the players and the wait, Find players; his waiting message.
    `words`: the buttons' words in his language (English by default)."""
    words = words or {QUICK: QUICK, FIND: FIND, "s": "s"}
    quick, find = words[QUICK], words[FIND]
    before = len(tg.messages(user_id))
    await tg.send_text(user_id, "/start")
    await tg.wait_for(lambda: len(tg.messages(user_id)) > before and _has(
        tg.last_message(user_id), quick), timeout=60, what="the menu")
    menu = tg.last_message(user_id)
    await tg.press(user_id, menu, quick)
    await tg.wait_for(lambda: _has(tg.message(user_id, menu.message_id), find), timeout=60,
                      what="the quick game's choice")
    for label in (str(players), f"⏱ {wait} {words['s']}"):
        current = tg.message(user_id, menu.message_id)
        if not _has(current, f"✅ {label}"):
            await tg.press(user_id, current, label)
            await tg.wait_for(lambda lb=label: _has(tg.message(user_id, menu.message_id),
                                                    f"✅ {lb}"), timeout=60)
    answer = await tg.press(user_id, tg.message(user_id, menu.message_id), find)
    assert not answer.show_alert, answer.text
    return tg.message(user_id, menu.message_id)


async def seated_together(store: Store, people: list[int]) -> int:
    tables = {(await store.tables.for_user(p)).id for p in people}
    assert len(tables) == 1, tables
    return tables.pop()


async def test_three_waiting_for_a_three_player_game_get_one_table(
        tg: FakeTelegram, bot: BotApp, store: Store) -> None:
    tg.add_user(CAROL, "Carol", language_code="en")
    tg.add_user(DAN, "Dan", language_code="ru")
    await queue_up(tg, ALICE, 3)
    waiting = await queue_up(tg, BOB, 3)
    await tg.wait_for(lambda: "2 of 3" in tg.message(BOB, waiting.message_id).text
                      and "2 of 3" in quick_message(tg, ALICE).text, timeout=60,
                      what="both waiting messages count two")
    await queue_up(tg, DAN, 2, words=RU)   # another game: he keeps waiting
    await queue_up(tg, CAROL, 3)
    people = [ALICE, BOB, CAROL]
    await tg.wait_for(lambda: all(game_message(tg, p) is not None for p in people)
                      and all("Table found" in quick_message(tg, p).text for p in people),
                      timeout=60, what="everyone's game")
    table_id = await seated_together(store, people)
    row = await store.tables.get(table_id)
    assert row.chat_id == QUICK_CHAT and [s.user_id for s in row.seats] == people
    assert [e.user_id for e in await store.quick.waiting()] == [DAN]
    assert game_message(tg, DAN) is None
    # Dan leaves the queue (in Russian): his message says so, the queue is empty.
    dan = quick_message(tg, DAN)
    answer = await tg.press(DAN, dan, "✖ Выйти из очереди")
    assert not answer.show_alert
    await tg.wait_for(lambda: "больше не в очереди" in tg.message(DAN, dan.message_id).text,
                      timeout=60)
    assert await store.quick.waiting() == []
    # Leave again (a stale tap): not in the queue any more, nothing changes.
    again = await tg.press(DAN, dan, dan.buttons[-1][-1])
    assert again.show_alert


async def test_one_alone_starts_with_computers_after_his_wait(
        tg: FakeTelegram, bot: BotApp, store: Store) -> None:
    waiting = await queue_up(tg, ALICE, 3, wait=15)
    assert not _has(waiting, WITH_COMPUTERS)
    # Before his wait is over, a forged Start is refused.
    early = await tg.press(ALICE, waiting, b"qg:s:throw-in:2:36:30")
    assert early.show_alert
    await tg.wait_for(lambda: _has(tg.message(ALICE, waiting.message_id), WITH_COMPUTERS),
                      timeout=60, what="the offer to start with computers")
    answer = await tg.press(ALICE, tg.message(ALICE, waiting.message_id), WITH_COMPUTERS)
    assert not answer.show_alert, answer.text
    await tg.wait_for(lambda: game_message(tg, ALICE) is not None, timeout=60)
    row = await store.tables.for_user(ALICE)
    assert [s.user_id for s in row.seats] == [ALICE, None, None]
    assert await store.quick.waiting() == []


async def test_the_report_after_a_quick_game_and_the_top(
        tg: FakeTelegram, bot: BotApp, store: Store) -> None:
    await queue_up(tg, ALICE, 2)
    await queue_up(tg, BOB, 2)
    await tg.wait_for(lambda: game_message(tg, ALICE) is not None
                      and game_message(tg, BOB) is not None, timeout=60)
    table_id = await seated_together(store, [ALICE, BOB])
    # During the game a report is refused; Bob gives up (the seat goes to a computer).
    early = await tg.press(ALICE, game_message(tg, ALICE),
                           ReportTap(table_id, BOB, ReportReason.LEFT).pack().encode())
    assert early.show_alert and "once the game is over" in early.text
    for person in (BOB, ALICE):   # both resign: a computer plays each seat, the table ends
        await tg.send_text(person, "/quit")
        await tg.wait_for(lambda p=person: _has(tg.last_message(p), "Resign"), timeout=60)
        await tg.press(person, tg.last_message(person), "Resign")
    offer = await tg.wait_for(lambda: next((m for m in tg.messages(ALICE)
                                            if _has(m, "⚠ Bob: left on purpose")), None),
                              timeout=120, what="the report offer")
    answer = await tg.press(ALICE, offer, "⚠ Bob: left on purpose")
    assert "not be matched with Bob" in answer.text
    assert await store.quick.reports(BOB) == {ReportReason.LEFT: 1}
    assert (await store.tables.get(table_id)).status != TableStatus.RUNNING
    # The two never meet again: both wait for the same game, no table opens.
    await queue_up(tg, ALICE, 2)
    await queue_up(tg, BOB, 2)
    await asyncio.sleep(1.0)   # several of the queue's ticks
    assert {e.user_id for e in await store.quick.waiting()} == {ALICE, BOB}
    # /top in the private chat: the quick games' players.
    await tg.send_text(ALICE, "/top")
    await tg.wait_for(lambda: "Quick games: best players" in tg.last_message(ALICE).text,
                      timeout=60)


async def _stop(proc: subprocess.Popen, sig: int) -> None:
    proc.send_signal(sig)
    await asyncio.get_running_loop().run_in_executor(None, proc.wait, 20)


async def test_the_queue_outlives_a_killed_bot(tg: FakeTelegram, db_path: str) -> None:
    tg.add_user(CAROL, "Carol", language_code="en")
    first = await started_bot(tg, db_path)
    try:
        waiting = await queue_up(tg, ALICE, 3)
        await tg.wait_for(lambda: "1 of 3" in tg.message(ALICE, waiting.message_id).text,
                          timeout=60)
    finally:
        await _stop(first, signal.SIGKILL)   # a crash
    second = await started_bot(tg, db_path)
    try:
        await queue_up(tg, BOB, 3)
        await tg.wait_for(lambda: "2 of 3" in tg.message(ALICE, waiting.message_id).text,
                          timeout=60, what="Alice's message counting Bob after the restart")
        await queue_up(tg, CAROL, 3)
        people = [ALICE, BOB, CAROL]
        await tg.wait_for(lambda: all(game_message(tg, p) is not None for p in people),
                          timeout=60, what="one table for the three")
    finally:
        await _stop(second, signal.SIGTERM)
    store = await Store.open(db_path)
    try:
        await seated_together(store, people)
        assert await store.quick.waiting() == []
    finally:
        await store.close()


async def test_one_who_sits_down_elsewhere_leaves_the_queue(
        tg: FakeTelegram, bot: BotApp, store: Store) -> None:
    waiting = await queue_up(tg, BOB, 3)
    await tg.send_text(BOB, "/start")
    await tg.wait_for(lambda: tg.last_message(BOB).message_id != waiting.message_id
                      and _has(tg.last_message(BOB), "▶ Play"), timeout=60)
    await tg.press(BOB, tg.last_message(BOB), "▶ Play")   # a game against computers
    await tg.wait_for(lambda: game_message(tg, BOB) is not None, timeout=60)
    await tg.wait_for(lambda: "out of the queue" in tg.message(BOB, waiting.message_id).text,
                      timeout=60, what="his waiting message letting him go")
    assert await store.quick.waiting() == []


async def test_one_who_joins_a_lobby_while_he_waits_leaves_the_queue_at_once(
        tg: FakeTelegram, bot: BotApp, store: Store) -> None:
    """Bob, waiting, joins a group's lobby; Carol, waiting, opens an inline game in her chat
    with Dan (she hosts it, seated at once): each tap is answered once its person has left the
    queue, his waiting message says so, and the queue never seats him at a second table."""
    tg.add_user(CAROL, "Carol", language_code="en")
    tg.add_user(DAN, "Dan", language_code="en")
    tg.add_group(GROUP, "Durak club", members=[ALICE, BOB], creator=ALICE)
    tg.set_inline()
    bob = await queue_up(tg, BOB, 3)
    carol = await queue_up(tg, CAROL, 3)
    await tg.send_text(ALICE, "/start")
    lobby = await open_lobby(tg, ALICE)
    answer = await tg.press(BOB, lobby, JOIN)
    assert answer.url is None and not answer.show_alert, answer   # he wrote to the bot
    assert [e.user_id for e in await store.quick.waiting()] == [CAROL]   # at once
    asked = await tg.inline_query(CAROL, "", tg.add_dialog(CAROL, DAN).id)
    game = tg.state.inline.choose(asked, "🃏 New table: Throw-in")
    answer = await tg.press(CAROL, game, JOIN)
    assert answer.url is None and not answer.show_alert, answer
    assert await store.quick.waiting() == []
    for person, waiting in ((BOB, bob), (CAROL, carol)):
        await tg.wait_for(lambda p=person, w=waiting: "out of the queue" in tg.message(
            p, w.message_id).text, timeout=60, what="his waiting message letting him go")
    # Dan and Eve come for the same game: two of three, no table, Bob and Carol where they sat.
    tg.add_user(EVE, "Eve", language_code="en")
    for person in (DAN, EVE):
        await queue_up(tg, person, 3)
    await tg.wait_for(lambda: "2 of 3" in quick_message(tg, EVE).text, timeout=60)
    assert {e.user_id for e in await store.quick.waiting()} == {DAN, EVE}
    assert [s.user_id for s in (await store.tables.for_user(BOB)).seats] == [ALICE, BOB]
    assert (await store.tables.for_user(CAROL)).chat_id != QUICK_CHAT
