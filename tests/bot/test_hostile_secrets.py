"""No hidden card gets out (issue 11, hostile input; RULES R11): two group games and two private
games at once, people tapping sensibly and carelessly (refused moves answer with alerts), in five
languages; every message the bot writes or edits, every answer to a tap and every log line at
INFO or above is checked, the moment it appears, against the cards hidden from its reader then.
A group's message and a log line may show no hidden card; a private message or answer may show
its reader's own hand."""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Iterator

import pytest

from tests.bot.conftest import ALICE, BOB, game_message, is_over, play_to_end
from tests.bot.groups import open_lobby, play_all
from tests.bot.hidden_cards import HiddenCards, Watch
from tg_durak.app import BotApp
from tg_durak.emulator import Change, FakeTelegram
from tg_durak.i18n.translate import translator
from tg_durak.render.callbacks import LobbyVerb

CAT, DAN, ERIN, FAY, GUS = 503, 504, 505, 506, 507
LANGUAGES = {ALICE: "en", BOB: "en", CAT: "ru", DAN: "uk", ERIN: "pl", FAY: "ru", GUS: "pl"}
FIRST, SECOND = -1001000000011, -1001000000012


@pytest.fixture
def cards(bot: BotApp) -> Iterator[HiddenCards]:
    """The scan, with every log line at INFO or above checked as it is written."""
    found = HiddenCards(bot.tables)
    handler, root = Watch(found), logging.getLogger()
    level = root.level
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    yield found
    root.removeHandler(handler)
    root.setLevel(level)


class Seen:
    """What the scan saw, by kind: so that a quiet run cannot pass for a clean one."""

    def __init__(self, tg: FakeTelegram, cards: HiddenCards) -> None:
        self.tg, self.cards = tg, cards
        self.counts = {"group": 0, "private": 0, "answer": 0, "alert": 0}

    def __call__(self, change: Change) -> None:
        if change.kind == "answer":
            text = change.detail.text
            self.counts["alert"] += bool(change.detail.show_alert)
        elif change.kind in ("message", "edit") and change.detail.from_bot:
            text = change.detail.text
        else:
            return
        kind = "answer" if change.kind == "answer" else (
            "group" if change.chat_id < 0 else "private")
        self.counts[kind] += 1
        self.cards.check(f"{kind} in {change.chat_id}", text or "", change.chat_id)


async def careless(tg: FakeTelegram, user_id: int, rng: random.Random) -> None:
    """Now and then a card that cannot be played: an alert says why."""
    while True:
        await asyncio.sleep(0.2 + rng.random() * 0.3)
        message = game_message(tg, user_id)
        if message is None or is_over(message):
            continue
        wrong = [b for row in message.buttons for b in row
                 if b.callback_data and b.callback_data.startswith("m:")
                 and ":c:" in b.callback_data and not b.text.startswith("•")]
        if wrong:
            await tg.press(user_id, message, rng.choice(wrong), timeout=60)


async def group_game(tg: FakeTelegram, bot: BotApp, chat_id: int, host: int,
                     guests: list[int], computer: str, seed: int) -> None:
    lobby = await open_lobby(tg, host, chat_id)   # in the host's language: buttons by data
    table = await bot.tables.running_table_of(host)
    for guest in guests:
        assert not (await tg.press(guest, lobby, f"g:{table}:{LobbyVerb.JOIN}:")).show_alert
    tap = f"g:{table}:{LobbyVerb.COMPUTER}:{computer}"
    assert not (await tg.press(host, lobby, tap)).show_alert
    if len(guests) < 2:
        assert not (await tg.press(host, lobby, f"g:{table}:{LobbyVerb.START}:")).show_alert
    people = [host, *guests]
    await tg.wait_for(lambda: table in bot.tables.core.tables   # running, in the host's language
                      and all(game_message(tg, p) for p in people), timeout=60)
    await play_all(tg, people, seed=seed, languages=LANGUAGES)
    rematch = f"g:{table}:{LobbyVerb.REMATCH}:"
    await tg.wait_for(lambda: rematch in [b.callback_data for row in tg.message(
        chat_id, lobby.message_id).buttons for b in row], timeout=60, what="the result")


async def private_game(tg: FakeTelegram, user_id: int, seed: int) -> None:
    t = translator(LANGUAGES[user_id])
    await tg.press(user_id, tg.last_message(user_id), t("btn.quick_play"))
    await tg.wait_for(lambda: game_message(tg, user_id))
    await play_to_end(tg, user_id, seed=seed, timeout=180,
                      texts={"pass": t("btn.pass"), "take": t("btn.take")})


async def test_no_hidden_card_in_any_message_answer_or_log_line(
        tg: FakeTelegram, bot: BotApp, cards: HiddenCards) -> None:
    for person, language in LANGUAGES.items():
        if person not in (ALICE, BOB):
            tg.add_user(person, f"P{person}", language_code=language)
    tg.add_group(FIRST, "First", members=[ALICE, BOB, CAT], creator=ALICE)
    tg.add_group(SECOND, "Second", members=[DAN, ERIN], creator=DAN)
    for person in LANGUAGES:
        await tg.send_text(person, "/start")
    await tg.wait_for(lambda: all(tg.last_message(p) for p in LANGUAGES))
    seen = Seen(tg, cards)
    changes = tg.subscribe()
    changes.put_nowait = seen   # each change checked as Telegram shows it

    rng = random.Random(11)
    mistakes = [asyncio.create_task(careless(tg, p, random.Random(rng.random())))
                for p in (BOB, CAT, ERIN, FAY)]
    try:
        await asyncio.gather(
            group_game(tg, bot, FIRST, ALICE, [BOB, CAT], "normal", seed=3),   # 4th seat: start
            group_game(tg, bot, SECOND, DAN, [ERIN], "easy", seed=4),
            private_game(tg, FAY, seed=5),
            private_game(tg, GUS, seed=6),
        )
    finally:
        for task in mistakes:
            task.cancel()
        tg.unsubscribe(changes)

    assert cards.leaks == []
    assert len(cards.readers) >= 2 + len(LANGUAGES), "every game's chats were watched"
    counts = seen.counts
    assert counts["group"] > 8 and counts["private"] > 100 and counts["answer"] > 100, counts
    assert counts["alert"] > 0, counts
