"""A game in any chat through inline mode, end to end: two people who never added the bot to
anything (nor opened it) play in their own private chat. Alice types @bot and picks a game; the
message she sends via the bot becomes the lobby, the public table and the result, edited by its
inline_message_id; each hand is a private message the deep link opened. The bot is killed (-9)
in the middle and a new process goes on; then Rematch in the same message. Every tap answered,
no 429 under Telegram's budgets (inline edits: a group's 20 a minute)."""

from __future__ import annotations

import asyncio
import random
import signal
import subprocess

import pytest

from tests.bot.conftest import ALICE, BOB, choose_button, game_message, is_over, started_bot
from tests.bot.groups import BOT, play_all
from tg_durak.app import BotApp
from tg_durak.emulator import FakeTelegram, RateLimits
from tg_durak.emulator.models import Message
from tg_durak.i18n.translate import Translator, translator
from tg_durak.storage import Store


async def _stop(proc: subprocess.Popen, sig: int) -> None:
    proc.send_signal(sig)
    await asyncio.get_running_loop().run_in_executor(None, proc.wait, 20)


def _buttons(message: Message) -> list[str]:
    return [b.text for row in message.buttons for b in row]


async def _join(tg: FakeTelegram, user_id: int, table: Message, name: str) -> None:
    """Join on the inline message: the bot cannot write to him yet, so its answer opens his
    private chat with the bot (one tap: Start), which seats him."""
    answer = await tg.press(user_id, tg.message(table.chat_id, table.message_id),
                            tg_text(table, "join"))
    assert answer.url is not None and answer.url.startswith(f"https://t.me/{BOT}?start=")
    await tg.follow_url(user_id)
    await tg.wait_for(lambda: any(line.endswith(f". {name}") for line in tg.message(
        table.chat_id, table.message_id).text.splitlines()), timeout=60,
        what=f"{name} seated in the inline lobby")


def tg_text(table: Message, what: str) -> str:
    return _TEXTS[table.chat_id][what]


_TEXTS: dict[int, dict[str, str]] = {}


async def _some_moves(tg: FakeTelegram, people: list[int], taps: int, t: Translator) -> None:
    """The people take turns tapping their game messages until `taps` taps were answered."""
    rng = random.Random(7)
    texts = {"pass": t("btn.pass"), "take": t("btn.take")}
    done = 0
    while done < taps:
        for person in people:
            message = game_message(tg, person)
            if is_over(message):
                return
            choice = choose_button(message, rng, texts)
            if choice is not None:
                await tg.press(person, message, choice, timeout=60)
                done += 1
        await asyncio.sleep(0.05)


@pytest.mark.parametrize("language", ["en", "ru"])
async def test_an_inline_game_in_a_private_chat_survives_a_kill_and_rematches(
        language: str, db_path: str) -> None:
    t = translator(language)
    async with FakeTelegram(callback_ttl=180.0, rate_limits=RateLimits(
            inline_per_minute=20, group_per_minute=20, global_per_second=30)) as tg:
        tg.set_inline()   # BotFather's /setinline; no inline feedback
        tg.add_user(ALICE, "Alice", language_code=language)
        tg.add_user(BOB, "Bob", language_code=language)
        chat = tg.add_dialog(ALICE, BOB)
        _TEXTS[chat.id] = {"join": t("btn.lobby.join"), "start": t("btn.start"),
                           "rematch": t("btn.lobby.rematch")}
        trump = t("game.header", trump="", stock="", discard="").split(" ")[0]

        first = await started_bot(tg, db_path)
        try:
            asked = await tg.inline_query(ALICE, "", chat.id)
            assert asked.answer is not None
            titles = [r.title for r in asked.answer.results]
            game = t("inline.game", game=t("variant.throw-in"))
            assert titles == [game, t("inline.game", game=t("variant.transfer")),
                              t("inline.record")]
            assert asked.answer.start_parameter == "play"   # More options: the setup
            table = tg.state.inline.choose(asked, game)
            assert table.inline_id is not None and _buttons(table) == [t("btn.lobby.join")]
            assert not tg.messages(ALICE) and not tg.messages(BOB)   # never opened the bot

            await _join(tg, BOB, table, "Bob")   # the first tap opens the lobby
            lobby = _buttons(tg.message(chat.id, table.message_id))
            assert t("btn.start") in lobby and t("btn.notify") not in lobby   # not in the chat
            await _join(tg, ALICE, table, "Alice")
            answer = await tg.press(ALICE, tg.message(chat.id, table.message_id),
                                    t("btn.start"))
            assert not answer.show_alert, answer.text
            await tg.wait_for(lambda: all(game_message(tg, p) is not None for p in (ALICE, BOB))
                              and tg.message(chat.id, table.message_id).text.startswith(trump),
                              timeout=60, what="the hands and the public table")
            hands = {p: game_message(tg, p).message_id for p in (ALICE, BOB)}
            await _some_moves(tg, [ALICE, BOB], 6, t)
        finally:
            await _stop(first, signal.SIGKILL)   # a crash in the middle of the game

        edits = tg.message(chat.id, table.message_id).edit_count
        second = await started_bot(tg, db_path)
        try:
            finals = await play_all(tg, [ALICE, BOB], seed=11,
                                    languages={ALICE: language, BOB: language})
            assert {p: m.message_id for p, m in finals.items()} == hands   # the same hands
            await tg.wait_for(lambda: t("btn.lobby.rematch") in _buttons(
                tg.message(chat.id, table.message_id)), timeout=60, what="the result")
            assert tg.message(chat.id, table.message_id).edit_count > edits

            answer = await tg.press(BOB, tg.message(chat.id, table.message_id),
                                    t("btn.lobby.rematch"))
            assert not answer.show_alert, answer.text
            # The rematch's lobby takes over the same message (the bot cannot post there),
            # both seated at once: the bot may write to them now.
            await tg.wait_for(lambda: t("btn.start") in _buttons(
                tg.message(chat.id, table.message_id)), timeout=60, what="the rematch lobby")
            text = tg.message(chat.id, table.message_id).text
            assert {"1. Bob", "2. Alice"} <= set(text.splitlines())   # seated as they sat
            answer = await tg.press(BOB, tg.message(chat.id, table.message_id),
                                    t("btn.start"))
            assert not answer.show_alert, answer.text
            await tg.wait_for(lambda: all(
                (m := game_message(tg, p)) is not None and m.message_id != hands[p]
                for p in (ALICE, BOB)), timeout=60, what="the rematch's hands")
        finally:
            await _stop(second, signal.SIGTERM)

        refused = [c for c in tg.calls if c.error_code == 429]
        assert not refused, refused
        assert tg.busiest_minute(chat.id) <= 20   # the inline message's edits in that chat
        assert [m.message_id for m in tg.messages(chat.id, include_user=True)] == [
            table.message_id]   # one message in the chat all along

    store = await Store.open(db_path)
    try:
        records = [await store.results.player_record(p) for p in (ALICE, BOB)]
        assert all(r.people.games == 1 and r.rating is not None for r in records)   # rated
    finally:
        await store.close()


async def test_two_inline_tables_at_once_in_one_chat_and_a_tap_from_another_chat(
        tg: FakeTelegram, bot: BotApp) -> None:
    """Alice and Bob each post a game into their chat: two lobbies, then two tables, at once in
    one chat. A button of Alice's table pressed on a message in another chat changes nothing."""
    t = translator("en")
    carol = 503
    tg.set_inline()
    tg.add_user(carol, "Carol", language_code="en")
    chat, elsewhere = tg.add_dialog(ALICE, BOB), tg.add_dialog(ALICE, carol)
    for person in (ALICE, BOB):
        await tg.send_text(person, "/start")   # the bot may write to them: seated at once
    game = t("inline.game", game=t("variant.transfer"))
    tables = [await tg.choose_inline(host, game, chat_id=chat.id) for host in (ALICE, BOB)]
    for host, table in zip((ALICE, BOB), tables, strict=True):
        answer = await tg.press(host, table, t("btn.lobby.join"))   # opens it, him seated
        assert answer.text == t("lobby.joined") and not answer.show_alert
        await tg.wait_for(lambda m=table: t("btn.start") in _buttons(
            tg.message(chat.id, m.message_id)))
    start = tg.message(chat.id, tables[0].message_id).button(t("btn.start"))
    other = await tg.choose_inline(carol, game, chat_id=elsewhere.id)
    forged = await tg.press(carol, other, start)   # Alice's Start, pressed in Carol's chat
    assert forged.text == t("tap.unknown") and forged.show_alert
    for host, table in zip((ALICE, BOB), tables, strict=True):
        lobby = tg.message(chat.id, table.message_id)
        await tg.press(host, lobby, f"+🤖 {t('level.easy')}")
        await tg.wait_for(lambda m=table: "2 of" in tg.message(chat.id, m.message_id).text)
        answer = await tg.press(host, tg.message(chat.id, table.message_id), t("btn.start"))
        assert not answer.show_alert, answer.text
    trump = t("game.header", trump="", stock="", discard="").split(" ")[0]
    await tg.wait_for(lambda: all(tg.message(chat.id, m.message_id).text.startswith(trump)
                                  for m in tables), timeout=60, what="both public tables")
    assert all(game_message(tg, p) is not None for p in (ALICE, BOB))
