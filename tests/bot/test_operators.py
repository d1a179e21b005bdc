"""The operators' commands end to end (issue 38), the real bot against the emulator: a ban (the
banned person's taps change nothing, his seat plays on as a computer), maintenance (no new game
or table, the notice; a running game goes on), a broadcast to 300 people killed with -9 half-way
and resumed with nobody messaged twice, and a non-operator's /ban as any unknown command."""

from __future__ import annotations

import asyncio
import signal
from collections import Counter
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path

import aiohttp
import pytest

from tests.bot.app_pages import open_page, serving_app
from tests.bot.conftest import (
    ALICE,
    BOB,
    game_message,
    is_over,
    play_to_end,
    settings_for,
    started_bot,
)
from tests.bot.faults import exit_code, quick_game
from tests.bot.groups import BOT, GROUP, add_computer, join, open_lobby, start
from tests.helpers.fleet import Fleet
from tests.store.conftest import pg_database, pg_url  # noqa: F401  (fixtures)
from tg_durak.app import BotApp
from tg_durak.emulator import FakeTelegram, RateLimits
from tg_durak.emulator.models import Message
from tg_durak.i18n.translate import translator
from tg_durak.play.operators import BroadcastStatus, RecipientState
from tg_durak.play.rows import SeatStatus
from tg_durak.storage import Store
from tg_durak.tables.broadcasts import BATCH
from tg_durak.tables.moderation import REFRESH_SECONDS

OPERATOR = 900
EN = translator("en")
BANNED = EN("banned.line")
UNKNOWN = EN("unknown.command")
CROWD = range(20_001, 20_301)   # 300 people who used the bot lately
BLOCKED = {20_100, 20_200, 20_300}   # block the bot once the broadcast is under way
# Telegram's flood limits, a private chat's scaled as the bot's edit interval is (as
# tests/bot/test_scale_out.py): a 429 would be the bot's fault.
TELEGRAM = RateLimits(private_per_second=20, group_per_minute=20, global_per_second=30)


@pytest.fixture
async def bot(tg: FakeTelegram, db_path: str) -> AsyncIterator[BotApp]:
    tg.add_user(OPERATOR, "Olga", language_code="en")
    app = BotApp(replace(settings_for(tg, db_path), operators=frozenset({OPERATOR})))
    await app.start()
    yield app
    await app.stop()


def bot_texts(tg: FakeTelegram, chat_id: int) -> list[str]:
    return [m.text for m in tg.messages(chat_id) if m.from_bot]


async def said(tg: FakeTelegram, user_id: int, text: str, chat_id: int | None = None,
               reply_to: int | None = None) -> str:
    """The user writes `text` (in reply to message `reply_to`); the bot's next message in that
    chat."""
    where = user_id if chat_id is None else chat_id
    before = len(bot_texts(tg, where))
    await tg.send_text(user_id, text, chat_id=chat_id, reply_to=reply_to)
    await tg.wait_for(lambda: len(bot_texts(tg, where)) > before, timeout=60,
                      what=f"an answer to {text}")
    return bot_texts(tg, where)[before]


async def test_a_non_operators_ban_is_an_unknown_command(tg: FakeTelegram, bot: BotApp,
                                                         db_path: str) -> None:
    menu = {c.command for c in tg.visible_commands(OPERATOR)}
    assert {"ban", "unban", "broadcast", "maintenance", "opstats", "play"} <= menu
    assert not {"ban", "broadcast"} & {c.command for c in tg.visible_commands(ALICE)}
    assert await said(tg, ALICE, f"/ban {BOB}") == UNKNOWN
    assert await said(tg, ALICE, "/broadcast hello everyone") == UNKNOWN
    assert await said(tg, ALICE, "/maintenance on") == UNKNOWN
    assert await said(tg, ALICE, "/opstats") == UNKNOWN
    assert await said(tg, ALICE, "/no_such_command") == UNKNOWN
    store = await Store.open(db_path)
    try:
        assert await store.operators.banned() == frozenset()
        assert await store.operators.logged() == []
        assert await store.operators.maintenance_until() is None
    finally:
        await store.close()


async def test_an_operators_mistakes_get_a_clear_answer_and_change_nothing(
        tg: FakeTelegram, bot: BotApp, db_path: str) -> None:
    answers = {
        "/ban": EN("op.ban.usage"),
        "/ban @nobody": EN("op.not_found", who="@nobody"),
        f"/ban {OPERATOR}": EN("op.ban.operator", user=f"Olga ({OPERATOR})"),
        "/unban 12345": EN("op.unban.none", user="12345"),
        "/maintenance sideways": EN("op.maintenance.usage", most=7 * 24 * 60),
        "/maintenance on 0": EN("op.maintenance.usage", most=7 * 24 * 60),
        "/broadcast": EN("op.broadcast.usage"),
        "/broadcast stop": EN("op.broadcast.none"),
        "/broadcast " + "<&>" * 1000: EN("op.broadcast.too_long", most=3500),
    }
    for command, answer in answers.items():
        assert await said(tg, OPERATOR, command) == answer, command
    store = await Store.open(db_path)
    try:
        assert await store.operators.banned() == frozenset()
        assert await store.operators.maintenance_until() is None
        assert [action.value for _, action, _, _ in await store.operators.logged()] == [
            "unban"]   # tried, and recorded
    finally:
        await store.close()


async def test_a_banned_persons_taps_change_nothing_and_a_computer_plays_his_seat(
        tg: FakeTelegram, bot: BotApp, db_path: str) -> None:
    tg.add_group(GROUP, "Club", members=[ALICE, BOB], creator=ALICE)
    for person in (ALICE, BOB):
        await tg.send_text(person, "/start")
    await tg.wait_for(lambda: bot_texts(tg, ALICE) and bot_texts(tg, BOB), timeout=60)
    lobby = await open_lobby(tg, ALICE)
    await join(tg, BOB, lobby, "Bob")
    await add_computer(tg, ALICE, lobby)
    await start(tg, ALICE, lobby, [ALICE, BOB])
    table_id = await bot.tables.running_table_of(BOB)
    assert table_id is not None

    message = game_message(tg, BOB)
    card = next(b for row in message.buttons for b in row if b.callback_data)
    answer = await said(tg, OPERATOR, f"/ban {BOB}")
    assert answer.startswith("⛔") and f"({BOB})" in answer

    # His game message's buttons, his commands: one line, nothing changes.
    tapped = await tg.press(BOB, message, card)
    assert (tapped.text, tapped.show_alert) == (BANNED, True)
    assert await said(tg, BOB, "/play") == BANNED
    sent = len(bot_texts(tg, BOB))
    await tg.send_text(BOB, "/quit")   # answered once a minute at most: no flood of answers
    await asyncio.sleep(0.5)
    assert len(bot_texts(tg, BOB)) == sent

    # The table plays on, a computer in his seat, to its end.
    final = await play_to_end(tg, ALICE, seed=3)
    assert is_over(final)
    store = await Store.open(db_path)
    try:
        row = await store.tables.get(table_id)
        assert row is not None and row.status == "finished"
        bob = next(s for s in row.seats if s.user == BOB)
        assert bob.status == SeatStatus.LEFT
        assert await store.operators.banned() == frozenset({BOB})
        logged = await store.operators.logged()
        assert [(op, action.value, detail) for op, action, detail, _ in logged] == [
            (OPERATOR, "ban", {"user": BOB})]
    finally:
        await store.close()

    assert (await said(tg, OPERATOR, f"/unban {BOB}")).startswith("✅")
    assert await said(tg, BOB, "/rules") != BANNED


async def test_a_ban_by_replying_to_a_forwarded_message(tg: FakeTelegram, bot: BotApp) -> None:
    """The operator forwards what a person wrote in a group to his chat with the bot and
    answers it with /ban; a sender whose privacy settings hide him is not guessed at."""
    tg.add_group(GROUP, "Club", members=[ALICE, BOB, OPERATOR], creator=ALICE)
    for person in (ALICE, BOB):
        await tg.send_text(person, "/start")
    await tg.wait_for(lambda: bot_texts(tg, ALICE) and bot_texts(tg, BOB), timeout=60)
    rude = await tg.send_text(BOB, "you all play like ducks", chat_id=GROUP)
    shy = await tg.send_text(ALICE, "me too", chat_id=GROUP)

    async def forward_and_ban(message: Message, hidden: bool = False) -> str:
        before = len(bot_texts(tg, OPERATOR))
        forwarded = await tg.forward(OPERATOR, GROUP, message.message_id, hidden=hidden)
        assert (forwarded.text, forwarded.chat_id) == (message.text, OPERATOR)
        # The forward alone is any other text to the bot ("unknown"); the reply is the ban.
        await tg.wait_for(lambda: len(bot_texts(tg, OPERATOR)) > before, timeout=60)
        return await said(tg, OPERATOR, "/ban", reply_to=forwarded.message_id)

    assert await forward_and_ban(shy, hidden=True) == EN("op.forward_hidden")
    assert await forward_and_ban(rude) == EN("op.ban.done", user=f"Bob ({BOB})")
    assert await said(tg, BOB, "/play") == BANNED
    assert await said(tg, ALICE, "/rules") != BANNED


async def test_maintenance_refuses_new_games_and_a_running_game_goes_on(
        tg: FakeTelegram, bot: BotApp) -> None:
    tg.add_group(GROUP, "Club", members=[ALICE, BOB], creator=BOB)
    await quick_game(tg, ALICE)   # running before maintenance begins
    assert (await said(tg, OPERATOR, "/maintenance on 30")).startswith("🛠")

    notice = EN("maintenance.notice", minutes=30)
    assert await said(tg, BOB, "/play") == notice
    assert await said(tg, BOB, f"/new@{BOT}", chat_id=GROUP) == notice
    assert await bot.tables.running_table_of(BOB) is None

    final = await play_to_end(tg, ALICE, seed=2)   # the running game goes on to its end
    again = next(b for row in final.buttons for b in row if b.callback_data == "u:again:")
    tapped = await tg.press(ALICE, final, again)
    assert tapped.show_alert and tapped.text.startswith("🛠 ")
    assert await bot.tables.running_table_of(ALICE) is None

    stats = await said(tg, OPERATOR, "/opstats")
    assert "Maintenance: on, 30 min left" in stats, stats
    assert (await said(tg, OPERATOR, "/maintenance off")).startswith("✅")
    assert await said(tg, BOB, "/play") != notice   # the setup screen again


async def test_the_mini_app_refuses_a_banned_persons_launch(
        tg: FakeTelegram, db_path: str, http: aiohttp.ClientSession) -> None:
    tg.add_user(OPERATOR, "Olga", language_code="en")
    settings = replace(settings_for(tg, db_path), operators=frozenset({OPERATOR}))
    async with serving_app(tg, settings) as app:
        message = await quick_game(tg, ALICE)
        launch = tg.open_web_app(ALICE, message, "🃏 Table")
        await said(tg, OPERATOR, f"/ban {ALICE}")
        page = await open_page(http, app.settings.webapp_url or "", launch)
        refusal = await page.receive()
        assert (refusal["type"], refusal["code"], refusal["text"]) == ("error", "banned", BANNED)
        closing = await page.ws.receive()
        assert closing.type == aiohttp.WSMsgType.CLOSE and page.ws.close_code == 4401
        assert await app.tables.running_table_of(ALICE) is None, "his private game ended"


# ---- the broadcast ---------------------------------------------------------------------------

async def a_crowd(tg: FakeTelegram, db_path: str) -> None:
    """300 people who used the bot lately, whose private chats are open to it."""
    store = await Store.open(db_path)
    try:
        now = tg.clock()
        for user_id in CROWD:
            tg.add_user(user_id, f"P{user_id}", language_code="en")
            tg.state.chats[user_id].opened = True
            await store.users.ensure(user_id, f"P{user_id}", "en")
            await store.users.set_reachable(user_id, True)
            await store.operators.seen(user_id, None, now - 86400)
    finally:
        await store.close()


def got(tg: FakeTelegram, text: str) -> Counter:
    """How many copies of the broadcast each of the crowd has."""
    return Counter({u: n for u in CROWD
                    if (n := sum(m.text == text for m in tg.messages(u) if m.from_bot))})


def preview_of(tg: FakeTelegram) -> Message | None:
    for m in reversed(tg.messages(OPERATOR)):
        if m.from_bot and any(b.text.startswith("📤") for row in m.buttons for b in row):
            return m
    return None


async def test_a_broadcast_killed_half_way_resumes_and_nobody_gets_two(
        tg: FakeTelegram, db_path: str) -> None:
    text = "The tournament starts on Saturday <b>at noon</b> & everyone is welcome."
    tg.add_user(OPERATOR, "Olga", language_code="en")
    await a_crowd(tg, db_path)
    tg.rate_limits = TELEGRAM
    env = {"DURAK_OPERATORS": f"{OPERATOR}, 1"}
    first = await started_bot(tg, db_path, **env)
    try:
        await tg.send_text(OPERATOR, f"/broadcast {text}")
        preview = await tg.wait_for(lambda: preview_of(tg), timeout=60, what="the preview")
        assert preview.text.endswith(text)   # as written: no HTML read into it
        send = next(b for row in preview.buttons for b in row if b.text.startswith("📤"))
        assert send.text == "📤 Send (301)"   # the operator used the bot too
        await tg.press(OPERATOR, preview, send)
        for user_id in BLOCKED:   # after its recipients were taken
            tg.block_bot(user_id)
        await tg.wait_for(lambda: len(got(tg, text)) >= len(CROWD) // 2, timeout=120,
                          what="half of the crowd reached")
        first.send_signal(signal.SIGKILL)
        await exit_code(first)
    finally:
        if first.poll() is None:
            first.kill()
    at_kill = got(tg, text)
    assert len(CROWD) // 2 <= len(at_kill) < len(CROWD), "killed half-way"

    second = await started_bot(tg, db_path, **env)
    try:
        await tg.wait_for(lambda: "✅" in tg.message(OPERATOR, preview.message_id).text,
                          timeout=120, what="the broadcast done")
    finally:
        second.send_signal(signal.SIGTERM)
        await exit_code(second)

    final = got(tg, text)
    assert max(final.values()) == 1, "nobody got it twice"
    store = await Store.open(db_path)
    try:
        (row,) = [b for b in [await store.operators.broadcast(1)] if b is not None]
        assert row.status == BroadcastStatus.DONE
        states = await store.operators.recipients(row.id)
    finally:
        await store.close()
    unknown = {u for u, state in states.items() if state == RecipientState.UNKNOWN}
    assert len(unknown) <= BATCH, "at most one batch was in flight at the kill"
    # Everyone else got it once; those in flight at the kill may have, or not (at most once).
    missed = set(CROWD) - set(final)
    assert missed <= unknown | BLOCKED and not BLOCKED & set(final)
    assert {u for u in CROWD if states[u] == RecipientState.SENT} == set(final) - unknown
    refused = {u for u, state in states.items() if state == RecipientState.FAILED}
    assert refused == BLOCKED - unknown, "Telegram's 403: refused, not sent again"
    assert [str(c) for c in tg.calls if c.error_code == 429] == [], "no 429 from Telegram"
    sent = sum(state == RecipientState.SENT for state in states.values())
    progress = tg.message(OPERATOR, preview.message_id).text
    assert f"sent {sent} of 301, refused {len(refused)}" in progress, progress


# ---- several processes -----------------------------------------------------------------------

async def test_maintenance_and_bans_hold_in_every_process_of_a_fleet(
        tg: FakeTelegram, pg_url: str, tmp_path: Path) -> None:  # noqa: F811
    """Two webhook processes on one PostgreSQL, the updates dealt round-robin: what the
    operator set through one process holds in the other within its refresh."""
    tg.add_user(OPERATOR, "Olga", language_code="en")
    async with Fleet(tg, pg_url, size=2, workdir=tmp_path / "fleet",
                     env={"DURAK_OPERATORS": str(OPERATOR)}) as fleet:
        try:
            for person in (OPERATOR, ALICE, BOB):
                await said(tg, person, "/start")
            assert (await said(tg, OPERATOR, "/maintenance on")).startswith("🛠")
            await asyncio.sleep(REFRESH_SECONDS)
            notice = EN("maintenance.notice_open")
            for _ in range(4):   # whichever process takes it
                assert await said(tg, ALICE, "/play") == notice

            assert (await said(tg, OPERATOR, f"/ban {BOB}")).startswith("⛔")
            await asyncio.sleep(REFRESH_SECONDS)
            before = len(bot_texts(tg, BOB))
            for _ in range(4):
                await tg.send_text(BOB, "/rules")
            await tg.wait_for(lambda: len(bot_texts(tg, BOB)) > before, timeout=60,
                              what="an answer to Bob")
            await asyncio.sleep(1.0)   # another on its way, if any
            answers = bot_texts(tg, BOB)[before:]
            assert answers and set(answers) == {BANNED}, answers
            assert len(answers) <= fleet.size, "once a minute in each process at most"

            assert (await said(tg, OPERATOR, "/maintenance off")).startswith("✅")
            await asyncio.sleep(REFRESH_SECONDS)
            for _ in range(4):
                assert await said(tg, ALICE, "/play") != notice
            for i in range(fleet.size):
                await fleet.stop(i)
        except BaseException:
            print(fleet.logs())
            raise
