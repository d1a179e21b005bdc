"""The database refuses a write (a file locked by another process, a full disk): the tap is
refused with a polite answer in the player's language, the table stays as it was (its message
shows what the store holds), and the game goes on once the database is back."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import random
import sqlite3
from collections.abc import AsyncIterator

from tests.bot.conftest import ALICE, choose_button, game_message, is_over, play_to_end
from tests.bot.faults import problems, quick_game, shown_version
from tg_durak.app import BotApp
from tg_durak.emulator import FakeTelegram, InlineButton, Message
from tg_durak.i18n.translate import translator
from tg_durak.storage import Store

PEOPLE = {601: "en", 602: "ru", 603: "uk", 604: "pl"}
NEWCOMER = 605


async def stored_version(store: Store, user_id: int) -> int:
    return (await store.tables.for_user(user_id)).version


async def next_screen(tg: FakeTelegram, user_id: int, shown: Message, what: str,
                      timeout: float = 60.0) -> None:
    """Until his game message is edited past `shown`."""
    await tg.wait_for(lambda: game_message(tg, user_id).edit_count != shown.edit_count,
                      timeout=timeout, what=what)


async def current_move(tg: FakeTelegram, store: Store, user_id: int, texts: dict[str, str]
                       ) -> tuple[Message, InlineButton]:
    """His game message once it shows the stored version and offers a move, and that move."""
    while True:
        message = await tg.wait_for(
            lambda: (lambda m: m if choose_button(m, random.Random(user_id), texts) else None)(
                game_message(tg, user_id)), what="a move the engine would take")
        if shown_version(message) == await stored_version(store, user_id):
            return message, choose_button(message, random.Random(user_id), texts)
        await next_screen(tg, user_id, message, "his screen of the stored version")


async def no_problems(db_path: str) -> None:
    assert await problems(db_path) == []


@contextlib.asynccontextmanager
async def locked_by_another_process(bot: BotApp, db_path: str) -> AsyncIterator[None]:
    """Another process takes the write lock and keeps it longer than the bot waits for it."""
    await bot.store.connection._db.execute("PRAGMA busy_timeout = 100")
    # Off the event loop: the bot runs in this process and may be inside a transaction.
    other = sqlite3.connect(db_path, isolation_level=None, check_same_thread=False)
    await asyncio.to_thread(other.execute, "BEGIN IMMEDIATE")
    try:
        yield
    finally:
        await asyncio.to_thread(other.execute, "ROLLBACK")
        other.close()


async def test_a_locked_database_refuses_taps_politely_in_every_language(
        tg: FakeTelegram, bot: BotApp, store: Store, db_path: str) -> None:
    for user_id, language in PEOPLE.items():
        tg.add_user(user_id, f"P{user_id}", language_code=language)
        await quick_game(tg, user_id)
    for user_id, language in PEOPLE.items():   # each person's turn comes (the computer led)
        t = translator(language)
        while True:
            message, button = await current_move(tg, store, user_id,
                                                 {"pass": t("btn.pass"), "take": t("btn.take")})
            async with locked_by_another_process(bot, db_path):
                version = await stored_version(store, user_id)
                if shown_version(message) != version:
                    continue   # his turn's clock (3 s here) ran out while the lock was taken
                answer = await tg.press(user_id, message, button)
                if answer.text == t("tap.choose_target"):
                    # A card that beats several asks which first; that writes nothing.
                    await next_screen(tg, user_id, message, "the cards it may beat")
                    continue
                assert answer.show_alert
                assert answer.text == t("error.not_saved"), language
                assert await stored_version(store, user_id) == version, "nothing was written"
                break
    async with locked_by_another_process(bot, db_path):
        # A newcomer's first message needs a write before any handler runs: answered too.
        tg.add_user(NEWCOMER, "Nowy", language_code="pl")
        await tg.send_text(NEWCOMER, "/start")
        reply = await tg.wait_for(lambda: tg.last_message(NEWCOMER), timeout=30)
        assert reply.text == translator("pl")("error.not_saved")
    # Back: the people play on, and the computers and clocks that were refused meanwhile too.
    for user_id, language in PEOPLE.items():
        t = translator(language)
        final = await play_to_end(tg, user_id, seed=user_id,
                                  texts={"pass": t("btn.pass"), "take": t("btn.take")})
        assert is_over(final)
    await bot.publisher.flush()
    await no_problems(db_path)


PACE = 0.25   # seconds between one person's taps: slower than the bot's throttle
PAD_TABLE = 1_000_000   # no such table: its log rows only take up room


def fill_the_disk(db_path: str) -> int:
    """Fill the file to its last byte, as a full disk would leave it: no free page, and the log's
    last page packed so that the next move's row needs a new page. Returns the page count."""
    with contextlib.closing(sqlite3.connect(db_path, isolation_level=None)) as db:
        db.execute("CREATE TABLE IF NOT EXISTS pad (x BLOB)")
        (pages,) = db.execute("PRAGMA page_count").fetchone()
        db.execute(f"PRAGMA max_page_count = {pages}")
        rows = itertools.count(1)
        for table, size in [("pad", 3000)] + [("actions", n) for n in (1000, 200, 40, 8, 1)]:
            while True:
                try:
                    if table == "pad":   # takes every free page
                        db.execute("INSERT INTO pad VALUES (zeroblob(?))", (size,))
                    else:   # fills the page the log's next row would go to
                        db.execute("INSERT INTO actions (table_id, seq, entry, at)"
                                   " VALUES (?, ?, ?, 0)", (PAD_TABLE, next(rows), "x" * size))
                except sqlite3.OperationalError as exc:
                    assert "full" in str(exc)
                    break
        return pages


async def test_a_full_disk_refuses_the_tap_and_keeps_the_table_as_stored(
        tg: FakeTelegram, bot: BotApp, store: Store, db_path: str) -> None:
    polite = translator("en")("error.not_saved")
    await quick_game(tg, ALICE)
    rng = random.Random(4)
    while "Your lead" not in (message := game_message(tg, ALICE)).text:
        # Until Alice leads: then nothing else (a computer, a deadline) writes before her tap.
        button = choose_button(message, rng, {"pass": "Pass", "take": "Take"})
        if button is None:
            await next_screen(tg, ALICE, message, "her next screen", timeout=10)
        else:
            await tg.press(ALICE, message, button)
            await asyncio.sleep(PACE)
        assert not is_over(game_message(tg, ALICE)), "the game ended before Alice led"
    version = await stored_version(store, ALICE)
    pages = await asyncio.to_thread(fill_the_disk, db_path)
    # the bot's disk too
    await bot.store.connection._db.execute(f"PRAGMA max_page_count = {pages}")
    button = choose_button(message, rng, {"pass": "Pass", "take": "Take"})
    answer = await tg.press(ALICE, message, button)
    assert (answer.text, answer.show_alert) == (polite, True)
    assert await stored_version(store, ALICE) == version, "nothing was written"
    await bot.publisher.flush()
    shown = game_message(tg, ALICE)
    assert shown_version(shown) == version and "Your lead" in shown.text, \
        "the message still shows the table as stored"
    await bot.store.connection._db.execute("PRAGMA max_page_count = 1073741823")   # room again
    await asyncio.sleep(PACE)
    answer = await tg.press(ALICE, shown, button)
    assert answer.text is None, "the same tap is taken now"
    final = await play_to_end(tg, ALICE, seed=11)
    assert is_over(final) and final.message_id == message.message_id
    await bot.publisher.flush()
    await no_problems(db_path)


async def test_a_refused_resignation_is_answered_politely_and_the_game_goes_on(
        tg: FakeTelegram, bot: BotApp, store: Store, db_path: str) -> None:
    message = await quick_game(tg, ALICE)
    await tg.send_text(ALICE, "/quit")
    question = await tg.wait_for(
        lambda: (lambda m: m if m is not None and "Resign" in m.text else None)(
            tg.last_message(ALICE)), timeout=30)
    async with locked_by_another_process(bot, db_path):
        answer = await tg.press(ALICE, question, "Resign")
        assert (answer.text, answer.show_alert) == (translator("en")("error.not_saved"), True)
    assert (await store.tables.for_user(ALICE)).status == "running"
    await bot.publisher.flush()
    shown = game_message(tg, ALICE)
    assert shown.message_id == message.message_id and not is_over(shown)
    button = choose_button(shown, random.Random(3), {"pass": "Pass", "take": "Take"})
    if button is not None:   # his move, if it is his turn: the game goes on
        answer = await tg.press(ALICE, shown, button)
        assert answer.text != translator("en")("tap.game_over"), answer.text
    answer = await tg.press(ALICE, question, "Resign")   # the question is still there
    assert answer.text == translator("en")("quit.done")
    await tg.wait_for(lambda: is_over(game_message(tg, ALICE)), timeout=30)
    assert (await store.results.stats(ALICE)).resigned == 1
    await bot.publisher.flush()
    await no_problems(db_path)
