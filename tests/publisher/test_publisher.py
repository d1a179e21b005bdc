import asyncio
import random
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Hashable
from dataclasses import dataclass
from datetime import datetime
from itertools import pairwise

import pytest
from aiogram.exceptions import (
    TelegramBadRequest,
    TelegramForbiddenError,
    TelegramMigrateToChat,
    TelegramNetworkError,
    TelegramRetryAfter,
)
from aiogram.methods import EditMessageText, SendMessage
from aiogram.types import (
    Chat,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    Message,
    ReplyParameters,
)

from tg_durak.outbox.budgets import TokenBucket
from tg_durak.outbox.publisher import Publisher
from tg_durak.outbox.queue import Priority
from tg_durak.outbox.reports import ChatRefused, MessageSent, OutboxReport, OutboxReports
from tg_durak.render.screen import Button, Screen

# Small budgets keep the tests fast; tests about a budget set that one large.
FAST = {"private_interval": 0.01, "group_per_minute": 6000, "global_per_second": 1000}
NOT_FOUND = "Bad Request: message to edit not found"


@dataclass(frozen=True)
class Call:
    method: str  # "send" or "edit"
    chat_id: int
    message_id: int | None
    text: str
    markup: InlineKeyboardMarkup | None
    parse_mode: str | None
    at: float
    thread_id: int | None = None  # the forum topic a message was sent to
    reply_to: int | None = None  # the message a new one answers


class FakeBot:
    """Just enough of aiogram.Bot, behaving like Telegram: unknown messages are not found,
    identical edits are "not modified", and planned failures are raised as real aiogram errors."""

    def __init__(self) -> None:
        self.calls: list[Call] = []
        self.messages: dict[tuple[int, int], tuple[str, InlineKeyboardMarkup | None]] = {}
        self.failures: list[Exception] = []  # raised by the next calls, in order
        self.gate: asyncio.Event | None = None  # when set up, requests wait for it
        self._next_id = 500

    async def send_message(
        self,
        chat_id: int,
        text: str,
        reply_markup: InlineKeyboardMarkup | None = None,
        parse_mode: str | None = None,
        message_thread_id: int | None = None,
        reply_parameters: ReplyParameters | None = None,
    ) -> Message:
        reply_to = None if reply_parameters is None else reply_parameters.message_id
        await self._arrive("send", chat_id, None, text, reply_markup, parse_mode,
                           message_thread_id, reply_to)
        self._next_id += 1
        self.messages[chat_id, self._next_id] = (text, reply_markup)
        kind = "private" if chat_id > 0 else "group"
        return Message(
            message_id=self._next_id, date=datetime.now(), chat=Chat(id=chat_id, type=kind),
            text=text,
        )

    async def edit_message_text(
        self,
        text: str,
        chat_id: int,
        message_id: int,
        reply_markup: InlineKeyboardMarkup | None = None,
        parse_mode: str | None = None,
    ) -> bool:
        await self._arrive("edit", chat_id, message_id, text, reply_markup, parse_mode)
        method = EditMessageText(chat_id=chat_id, message_id=message_id, text=text)
        if (chat_id, message_id) not in self.messages:
            raise TelegramBadRequest(method=method, message=NOT_FOUND)
        if self.messages[chat_id, message_id] == (text, reply_markup):
            raise TelegramBadRequest(
                method=method,
                message="Bad Request: message is not modified: specified new message content "
                "and reply markup are exactly the same as a current content and reply markup "
                "of the message",
            )
        self.messages[chat_id, message_id] = (text, reply_markup)
        return True

    async def _arrive(self, method: str, chat_id: int, message_id: int | None, text: str,
                      markup: InlineKeyboardMarkup | None, parse_mode: str | None,
                      thread_id: int | None = None, reply_to: int | None = None) -> None:
        self.calls.append(
            Call(method, chat_id, message_id, text, markup, parse_mode, time.monotonic(),
                 thread_id, reply_to)
        )
        if self.gate is not None:
            await self.gate.wait()
        if self.failures:
            raise self.failures.pop(0)

    def texts(self, chat_id: int | None = None) -> list[str]:
        return [c.text for c in self.calls if chat_id is None or c.chat_id == chat_id]


def send_method(chat_id: int = 1) -> SendMessage:
    return SendMessage(chat_id=chat_id, text="x")


async def until(condition: Callable[[], bool], timeout: float = 3.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "condition not reached"
        await asyncio.sleep(0.005)


@pytest.fixture
def bot() -> FakeBot:
    return FakeBot()


@pytest.fixture
def news() -> list[tuple[Hashable, int, int]]:
    return []


Factory = Callable[..., Awaitable[Publisher]]


@pytest.fixture
def chats() -> list[tuple[int, ...]]:
    """What the publisher reported about chats: ("blocked", id), ("migrated", old, new)."""
    return []


@pytest.fixture
async def make(bot: FakeBot, news: list, chats: list) -> AsyncIterator[Factory]:
    started: list[Publisher] = []

    class Noted(OutboxReports):
        async def put(self, report: OutboxReport) -> None:
            if isinstance(report, MessageSent):
                news.append((report.key, report.chat_id, report.message_id))
            elif isinstance(report, ChatRefused):
                chats.append(("blocked", report.chat_id))
            else:
                chats.append(("migrated", report.old_chat_id, report.new_chat_id))

    async def factory(**budgets: float) -> Publisher:
        publisher = Publisher(bot, **{**FAST, **budgets},  # type: ignore[arg-type]
                              reports=Noted())
        await publisher.start()
        started.append(publisher)
        return publisher

    yield factory
    for publisher in started:
        await publisher.stop()


def existing(bot: FakeBot, chat_id: int, message_id: int, text: str = "old") -> int:
    bot.messages[chat_id, message_id] = (text, None)
    return message_id


# -- token bucket ---------------------------------------------------------------------------


def test_token_bucket_paces_requests() -> None:
    bucket = TokenBucket(rate=2.0)  # one token every half second, none saved beyond one
    assert bucket.wait(100.0) == 0.0
    bucket.take(100.0)
    assert bucket.wait(100.0) == pytest.approx(0.5)
    assert bucket.wait(100.2) == pytest.approx(0.3)
    assert bucket.wait(100.5) == 0.0
    assert bucket.wait(200.0) == 0.0  # a long rest still saves up only one token
    bucket.take(200.0)
    assert bucket.wait(200.0) > 0


def test_token_bucket_with_a_burst() -> None:
    bucket = TokenBucket(rate=1.0, capacity=3)
    for _ in range(3):
        assert bucket.wait(0.0) == 0.0
        bucket.take(0.0)
    assert bucket.wait(0.0) == pytest.approx(1.0)
    assert not bucket.full(2.0)
    assert bucket.full(3.0)


# -- sending and editing --------------------------------------------------------------------


async def test_new_message_then_edits_of_it(make: Factory, bot: FakeBot, news: list) -> None:
    publisher = await make()
    keyboard = InlineKeyboardMarkup(
        inline_keyboard=[[InlineKeyboardButton(text="6♠", callback_data="t:1:0:6S")]]
    )
    publisher.show("k", 1, None, Screen("<b>hand</b>", [[Button("6♠", "t:1:0:6S")]]))
    await publisher.flush()

    [send] = bot.calls
    assert (send.method, send.chat_id, send.text) == ("send", 1, "<b>hand</b>")
    assert (send.markup, send.parse_mode) == (keyboard, "HTML")
    assert news == [("k", 1, 501)]

    # The caller has not stored the new id yet and still says None: edit, not a second message.
    publisher.show("k", 1, None, Screen("table"))
    await publisher.flush()
    assert [(c.method, c.message_id, c.markup) for c in bot.calls[1:]] == [("edit", 501, None)]
    assert bot.messages[1, 501] == ("table", None)
    assert len(news) == 1


async def test_rapid_screens_coalesce_and_the_last_wins(make: Factory, bot: FakeBot) -> None:
    publisher = await make(private_interval=0.05)
    message_id = existing(bot, 1, 7)
    publisher.show("k", 1, message_id, Screen("v0"))
    await until(lambda: len(bot.calls) == 1)  # the first goes out at once ...
    for i in range(1, 10):
        publisher.show("k", 1, message_id, Screen(f"v{i}"))  # ... the rest collapse into one
    await publisher.flush()

    assert bot.texts() == ["v0", "v9"]
    assert bot.messages[1, 7] == ("v9", None)


async def test_unchanged_screens_are_not_sent_again(make: Factory, bot: FakeBot) -> None:
    publisher = await make()
    message_id = existing(bot, 1, 7)
    publisher.show("k", 1, message_id, Screen("a"))
    await publisher.flush()
    publisher.show("k", 1, message_id, Screen("a"))
    await publisher.flush()
    # Changed and changed back before the worker got to it: nothing to do.
    publisher.show("k", 1, message_id, Screen("b"))
    publisher.show("k", 1, message_id, Screen("a"))
    await publisher.flush()

    assert bot.texts() == ["a"]


async def test_not_modified_counts_as_shown(make: Factory, bot: FakeBot) -> None:
    # After a restart the publisher does not know the message already shows this screen.
    publisher = await make()
    message_id = existing(bot, 1, 7, text="same")
    publisher.show("k", 1, message_id, Screen("same"))
    await publisher.flush()
    publisher.show("k", 1, message_id, Screen("same"))
    await publisher.flush()

    assert bot.texts() == ["same"]  # one refused edit, no retry, no resend


# -- budgets --------------------------------------------------------------------------------


async def test_a_private_chat_waits_for_its_budget_others_do_not(
    make: Factory, bot: FakeBot
) -> None:
    publisher = await make(private_interval=60)
    publisher.show("a", 1, existing(bot, 1, 7), Screen("first"))
    await until(lambda: len(bot.calls) == 1)
    publisher.show("b", 1, existing(bot, 1, 8), Screen("same chat"))
    publisher.show("c", 2, existing(bot, 2, 9), Screen("other chat"))
    await until(lambda: len(bot.calls) == 2)
    await asyncio.sleep(0.1)

    assert bot.texts() == ["first", "other chat"]
    with pytest.raises(TimeoutError):
        await publisher.flush(timeout=0.05)


async def test_a_group_waits_for_its_budget(make: Factory, bot: FakeBot) -> None:
    publisher = await make(group_per_minute=1)
    publisher.show("a", -100, existing(bot, -100, 7), Screen("first"))
    publisher.show("b", -100, existing(bot, -100, 8), Screen("second"))
    publisher.show("c", 1, existing(bot, 1, 9), Screen("private"))
    await until(lambda: len(bot.calls) == 2)
    await asyncio.sleep(0.1)

    assert sorted(bot.texts()) == ["first", "private"]


async def test_the_bot_wide_budget(make: Factory, bot: FakeBot) -> None:
    publisher = await make(global_per_second=1)
    for chat_id in (1, 2, 3):
        publisher.show(chat_id, chat_id, existing(bot, chat_id, 7), Screen(f"to {chat_id}"))
    await until(lambda: len(bot.calls) == 1)
    await asyncio.sleep(0.1)

    assert bot.texts() == ["to 1"]  # oldest first; the others wait a second each


async def test_screens_waiting_for_a_chat_go_out_in_turn(make: Factory, bot: FakeBot) -> None:
    publisher = await make(private_interval=0.02)
    for key in "abcd":
        publisher.show(key, 1, existing(bot, 1, ord(key)), Screen(key))
    await publisher.flush()

    assert bot.texts() == ["a", "b", "c", "d"]


async def test_retry_after_pauses_the_chat_then_sends_the_latest(
    make: Factory, bot: FakeBot
) -> None:
    publisher = await make()
    message_id = existing(bot, 1, 7)
    bot.failures.append(
        TelegramRetryAfter(method=send_method(), message="Too Many Requests: retry after 1",
                           retry_after=1)
    )
    publisher.show("k", 1, message_id, Screen("refused"))
    await until(lambda: len(bot.calls) == 1)
    publisher.show("k", 1, message_id, Screen("latest"))
    await publisher.flush()

    assert bot.texts() == ["refused", "latest"]
    assert bot.calls[1].at - bot.calls[0].at >= 0.999
    assert bot.messages[1, 7] == ("latest", None)


async def test_floods_in_two_chats_pause_the_whole_bot(make: Factory, bot: FakeBot) -> None:
    publisher = await make()
    bot.failures += [
        TelegramRetryAfter(method=send_method(chat), message="Too Many Requests", retry_after=1)
        for chat in (1, 2)
    ]
    publisher.show(1, 1, existing(bot, 1, 7), Screen("one"))
    publisher.show(2, 2, existing(bot, 2, 7), Screen("two"))
    await until(lambda: len(bot.calls) == 2)
    publisher.show(3, 3, existing(bot, 3, 7), Screen("three"))
    await publisher.flush()

    assert sorted(bot.texts()[2:]) == ["one", "three", "two"]
    second_flood = bot.calls[1].at
    assert all(call.at - second_flood >= 0.999 for call in bot.calls[2:])


# -- messages that are gone, errors ---------------------------------------------------------


async def test_a_lost_message_is_replaced(make: Factory, bot: FakeBot, news: list) -> None:
    publisher = await make()
    publisher.show("k", 1, 77, Screen("table"))  # message 77 was deleted in the chat
    await publisher.flush()

    assert [(c.method, c.message_id) for c in bot.calls] == [("edit", 77), ("send", None)]
    assert news == [("k", 1, 501)]
    assert bot.messages[1, 501] == ("table", None)

    publisher.show("k", 1, 77, Screen("next"))  # the caller's id is stale: ignored
    await publisher.flush()
    assert (bot.calls[-1].method, bot.calls[-1].message_id) == ("edit", 501)


async def test_a_message_that_cannot_be_edited_is_replaced(
    make: Factory, bot: FakeBot, news: list
) -> None:
    publisher = await make()
    method = EditMessageText(chat_id=1, message_id=7, text="x")
    bot.failures.append(
        TelegramBadRequest(method=method, message="Bad Request: message can't be edited")
    )
    publisher.show("k", 1, existing(bot, 1, 7), Screen("table"))
    await publisher.flush()

    assert [c.method for c in bot.calls] == ["edit", "send"]
    assert news == [("k", 1, 501)]


async def test_a_group_that_became_a_supergroup(make: Factory, bot: FakeBot, news: list,
                                                chats: list) -> None:
    publisher = await make()
    bot.failures.append(
        TelegramMigrateToChat(method=send_method(-100), message="Bad Request: group upgraded",
                              migrate_to_chat_id=-1009)
    )
    publisher.show("group", -100, existing(bot, -100, 7), Screen("table"))
    await publisher.flush()

    assert [(c.method, c.chat_id) for c in bot.calls] == [("edit", -100), ("send", -1009)]
    assert news == [("group", -1009, 501)]
    assert chats == [("migrated", -100, -1009)]


async def test_a_screen_for_a_forum_topic_is_sent_into_it(make: Factory, bot: FakeBot) -> None:
    publisher = await make()
    publisher.show("topic", -100, None, Screen("lobby"), thread_id=5)
    publisher.show("general", -100, None, Screen("elsewhere"))
    await publisher.flush()
    publisher.show("topic", -100, None, Screen("table"), thread_id=5)
    await publisher.flush()

    assert [(c.method, c.text, c.thread_id) for c in bot.calls] == [
        ("send", "lobby", 5), ("send", "elsewhere", None), ("edit", "table", None)]


async def test_a_blocked_bot_drops_the_keys_screens(make: Factory, bot: FakeBot,
                                                    chats: list) -> None:
    publisher = await make()
    bot.gate = asyncio.Event()
    bot.failures.append(
        TelegramForbiddenError(method=send_method(), message="Forbidden: bot was blocked")
    )
    message_id = existing(bot, 1, 7)
    publisher.show("k", 1, message_id, Screen("in flight"))
    await until(lambda: len(bot.calls) == 1)
    publisher.show("k", 1, message_id, Screen("waiting"))
    bot.gate.set()
    await publisher.flush()

    assert bot.texts() == ["in flight"]
    assert chats == [("blocked", 1)], "the caller hears of it"


async def test_errors_do_not_stop_the_worker(make: Factory, bot: FakeBot) -> None:
    publisher = await make()
    bot.failures += [
        RuntimeError("boom"),
        TelegramBadRequest(method=send_method(), message="Bad Request: can't parse entities"),
        TelegramNetworkError(method=send_method(), message="connection reset"),
    ]
    publisher.show("a", 1, existing(bot, 1, 7), Screen("a"))
    publisher.show("b", 2, existing(bot, 2, 7), Screen("<b"))
    publisher.show("c", 3, existing(bot, 3, 7), Screen("c"))
    await publisher.flush()
    publisher.show("d", 4, existing(bot, 4, 7), Screen("d"))
    await publisher.flush()

    assert bot.texts() == ["a", "<b", "c", "c", "d"]  # only the network failure is retried
    assert bot.messages[3, 7] == ("c", None)
    assert bot.messages[4, 7] == ("d", None)


# -- low priority ---------------------------------------------------------------------------


async def test_low_priority_is_dropped_when_the_chat_is_busy(make: Factory, bot: FakeBot) -> None:
    publisher = await make(private_interval=60)
    publisher.show("hand", 1, existing(bot, 1, 7), Screen("move"))
    await until(lambda: len(bot.calls) == 1)
    publisher.show("bar 1", 1, existing(bot, 1, 8), Screen("timer ▓▓░"), priority=Priority.BAR)
    publisher.show("bar 2", 2, existing(bot, 2, 8), Screen("timer ▓▓░"), priority=Priority.BAR)
    await publisher.flush()

    assert [(c.chat_id, c.text) for c in bot.calls] == [(1, "move"), (2, "timer ▓▓░")]


async def test_low_priority_never_goes_ahead_of_a_normal_screen(
    make: Factory, bot: FakeBot
) -> None:
    publisher = await make(global_per_second=1)
    publisher.show("bar", 1, existing(bot, 1, 7), Screen("timer"), priority=Priority.BAR)
    publisher.show("hand", 2, existing(bot, 2, 7), Screen("move"))
    await publisher.flush()

    assert bot.texts() == ["move"]


async def test_a_pending_normal_screen_is_not_downgraded(make: Factory, bot: FakeBot) -> None:
    publisher = await make(private_interval=0.3)
    message_id = existing(bot, 1, 7)
    publisher.show("k", 1, message_id, Screen("move 1"))
    await until(lambda: len(bot.calls) == 1)
    # The chat is busy: a lone timer refresh would be dropped, but it replaces a real move.
    publisher.show("k", 1, message_id, Screen("move 2"))
    publisher.show("k", 1, message_id, Screen("move 2, timer"), priority=Priority.BAR)
    await publisher.flush()

    assert bot.texts() == ["move 1", "move 2, timer"]


# -- one-off messages (command replies) ------------------------------------------------------


async def test_a_reply_is_sent_once_in_turn_and_never_edited(make: Factory, bot: FakeBot,
                                                             news: list) -> None:
    publisher = await make(private_interval=0.2)
    publisher.show("game", 1, existing(bot, 1, 7), Screen("table"))
    publisher.send(1, Screen("hello", None), reply_to=40)
    publisher.send(1, Screen("hello", None))
    await publisher.flush()

    # The person who wrote waits for the answer: it goes before a screen of who only watches.
    assert [(c.method, c.text, c.reply_to) for c in bot.calls] == [
        ("send", "hello", 40), ("send", "hello", None), ("edit", "table", None)]
    assert all(b.at - a.at >= 0.19 for a, b in pairwise(bot.calls)), "the chat's budget"
    assert news == [], "nobody stores a reply's id"
    assert publisher.stats()["replies"] == 2


async def test_a_reply_refused_with_429_waits_and_goes(make: Factory, bot: FakeBot) -> None:
    publisher = await make()
    bot.failures.append(
        TelegramRetryAfter(method=send_method(), message="Too Many Requests: retry after 1",
                           retry_after=1)
    )
    publisher.send(1, Screen("welcome"))
    await publisher.flush()

    assert bot.texts() == ["welcome", "welcome"]
    assert bot.calls[1].at - bot.calls[0].at >= 0.999
    assert publisher.stats()["errors_429"] == 1


async def test_the_counters(make: Factory, bot: FakeBot) -> None:
    publisher = await make(global_per_second=1)
    publisher.show("a", 1, existing(bot, 1, 7), Screen("a1"))
    await until(lambda: len(bot.calls) == 1)
    publisher.show("a", 1, 7, Screen("a2"))
    publisher.show("a", 1, 7, Screen("a3"), priority=Priority.MOVER)
    publisher.show("bar", 2, existing(bot, 2, 7), Screen("▓░"), priority=Priority.BAR)
    publisher.send(3, Screen("hi"))
    await publisher.flush()

    stats = publisher.stats()
    assert bot.texts() == ["a1", "a3", "hi"] or bot.texts() == ["a1", "hi", "a3"]
    assert {k: stats[k] for k in ("edits", "sends", "replies", "coalesced", "dropped")} == {
        "edits": 2, "sends": 1, "replies": 1, "coalesced": 1, "dropped": 1}
    assert 0.9 < stats["max_wait_s"] == stats["max_wait_s_mover"] < 3
    assert (stats["sent_mover"], stats["sent_player"]) == (2, 1), "a2 went as urgent as a3"
    assert stats["mean_wait_s_player"] < stats["mean_wait_s_mover"] <= stats["max_wait_s_mover"]
    assert stats["queued"] == 0


# -- life cycle -----------------------------------------------------------------------------


async def test_flush_needs_a_running_worker(bot: FakeBot) -> None:
    publisher = Publisher(bot, **FAST)  # type: ignore[arg-type]
    await publisher.flush()  # nothing pending: fine
    publisher.show("k", 1, None, Screen("x"))
    with pytest.raises(RuntimeError, match="not running"):
        await publisher.flush()
    await publisher.start()
    await publisher.flush()
    await publisher.stop()
    assert bot.texts() == ["x"]


async def test_many_keys_end_showing_their_latest_screens(
    make: Factory, bot: FakeBot, news: list
) -> None:
    rng = random.Random(7)
    publisher = await make()
    chats = [1, 2, 3, -100, -200]
    keys = {f"k{i}": rng.choice(chats) for i in range(12)}
    latest: dict[str, str] = {}
    for step in range(300):
        key = rng.choice(list(keys))
        latest[key] = f"{key} v{step}"
        if rng.random() < 0.1:
            bot.failures.append(TelegramNetworkError(method=send_method(), message="timeout"))
        publisher.show(key, keys[key], None, Screen(latest[key]))
        if rng.random() < 0.3:
            await asyncio.sleep(0)
    await publisher.flush()

    message_of = {key: (chat_id, message_id) for key, chat_id, message_id in news}
    assert set(message_of) == set(latest)  # one message per key, never a second one
    assert {key: bot.messages[message_of[key]][0] for key in latest} == latest
