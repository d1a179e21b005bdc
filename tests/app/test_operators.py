"""The operators' side without Telegram (issue 38): DURAK_OPERATORS, whom /ban names, bans and
maintenance as a second process sees them, a ban's hand-over at a running table, the last
hour's figures, and routers that run nothing in a thread. The store runs on SQLite and
PostgreSQL (tests/app/conftest.py)."""

from __future__ import annotations

import math
from datetime import datetime
from types import SimpleNamespace

import pytest
from aiogram.filters import CommandObject
from aiogram.types import Chat, Message, MessageOriginHiddenUser, MessageOriginUser, User
from prometheus_client import CollectorRegistry, Counter, Histogram

from tests.app.test_no_threads_in_routing import run_in_threads
from tests.app.test_table_service import ANN, BOB, START, FakeClock, service, three_people
from tg_durak.config import ConfigError, Settings
from tg_durak.observe.recent import EVERY, HOUR, LastHour, percentile
from tg_durak.play.operators import maintenance_refusal
from tg_durak.play.rows import SeatStatus
from tg_durak.storage import Store, StoreUnavailable
from tg_durak.tables.moderation import REFRESH_SECONDS, Moderation
from tg_durak.telegram.handlers import maintenance, operators
from tg_durak.telegram.handlers.operators import Unnamed, target_of

TOKEN = "123456:" + "A" * 35
OPERATOR = 900


def test_operators_are_read_from_ids_separated_by_commas_or_spaces() -> None:
    env = {"BOT_TOKEN": TOKEN, "DURAK_OPERATORS": " 12, 34 56,"}
    assert Settings.from_env(env).operators == frozenset({12, 34, 56})
    assert Settings.from_env({"BOT_TOKEN": TOKEN}).operators == frozenset()


@pytest.mark.parametrize("wrong", ["@olga", "12;34", "-5", "0", "1e3", "9" * 30])
def test_a_wrong_operator_id_is_one_line(wrong: str) -> None:
    with pytest.raises(ConfigError, match="DURAK_OPERATORS must be Telegram user ids") as info:
        Settings.from_env({"BOT_TOKEN": TOKEN, "DURAK_OPERATORS": wrong})
    assert "\n" not in str(info.value)


def _message(text: str, forwarded_from: User | None = None, hidden: bool = False) -> Message:
    chat = Chat(id=OPERATOR, type="private")
    replied = None
    if forwarded_from is not None or hidden:
        origin = MessageOriginHiddenUser(date=datetime.now(), sender_user_name="Someone") \
            if hidden else MessageOriginUser(date=datetime.now(), sender_user=forwarded_from)
        replied = Message(message_id=1, date=datetime.now(), chat=chat, text="spam",
                          forward_origin=origin)
    return Message(message_id=2, date=datetime.now(), chat=chat, text=text,
                   reply_to_message=replied)


def _command(text: str) -> CommandObject:
    name, _, args = text[1:].partition(" ")
    return CommandObject(prefix="/", command=name, args=args or None)


async def test_whom_a_ban_names(store: Store) -> None:
    await store.operators.seen(77, "Mallory", START)
    mallory = User(id=77, is_bot=False, first_name="Mallory")

    async def target(text: str, **kw: object) -> int | str | None:
        return await target_of(_message(text, **kw), _command(text), store)

    assert await target("/ban 77") == 77
    assert await target("/ban @mallory") == 77
    assert await target("/ban @nobody") == "@nobody"
    assert await target("/ban Mallory") == "Mallory"
    assert await target("/ban " + "9" * 30) == "9" * 30   # past 64 bits: nobody
    assert await target("/ban") is None
    assert await target("/ban", forwarded_from=mallory) == 77
    # his privacy settings hide who he is
    assert await target("/ban", hidden=True) is Unnamed.HIDDEN_SENDER


async def test_bans_and_maintenance_reach_another_process_within_its_refresh(
        store: Store) -> None:
    here, there = FakeClock(START), FakeClock(START)
    my_world = service(store, here)
    mine = Moderation(store, my_world.tables.core, my_world.tables.absences, here)
    other_world = service(store, there)
    other = Moderation(store, other_world.tables.core, other_world.tables.absences, there)
    assert not await other.is_banned(BOB)   # read now, kept for REFRESH_SECONDS
    assert await mine.ban(BOB, OPERATOR)
    assert await mine.is_banned(BOB), "this process's own change at once"
    assert not await other.is_banned(BOB)
    there.now += REFRESH_SECONDS
    assert await other.is_banned(BOB)

    await mine.set_maintenance(10, OPERATOR)   # here, 600 s from START
    there.now += REFRESH_SECONDS
    assert await other.maintenance_left() == pytest.approx(600 - 2 * REFRESH_SECONDS)
    there.now += 600
    assert await other.maintenance_left() is None, "it ends by itself"
    await mine.set_maintenance(None, OPERATOR)
    there.now += REFRESH_SECONDS
    assert await other.maintenance_left() == math.inf
    await mine.set_maintenance(None, OPERATOR, on=False)
    there.now += REFRESH_SECONDS
    assert await other.maintenance_left() is None


async def test_a_ban_hands_his_seat_to_a_computer_and_the_others_play_on(
        store: Store) -> None:
    world = service(store, FakeClock(START))
    table_id = await three_people(world)
    moderation = Moderation(store, world.tables.core, world.tables.absences, world.clock)
    await moderation.ban(BOB, OPERATOR)
    row = await store.tables.get(table_id)
    assert row is not None and row.status == "running", "Ann and Cid play on"
    assert {s.user: s.status for s in row.seats}[BOB] == SeatStatus.LEFT
    assert {s.user: s.status for s in row.seats}[ANN] == SeatStatus.PLAYING
    assert await world.tables.running_table_of(BOB) is None


def test_the_maintenance_notice_gives_whole_minutes() -> None:
    assert maintenance_refusal(61).params == {"minutes": 2}
    assert maintenance_refusal(1).params == {"minutes": 1}
    assert maintenance_refusal(math.inf).key == "maintenance.notice_open"


def test_the_last_hour_forgets_what_came_before_it() -> None:
    registry = CollectorRegistry()
    requests = Counter("durak_telegram_requests_total", "", ["method", "outcome"],
                       registry=registry)
    taps = Histogram("durak_update_seconds", "", ["kind"], buckets=(0.05, 0.5, 5.0),
                     registry=registry)
    clock = FakeClock(0.0)
    last_hour = LastHour(registry, clock)
    requests.labels("sendMessage", "retry_after").inc(3)
    for _ in range(10):
        taps.labels("callback_query").observe(4.0)   # slow, an hour and more ago
    for minute in range(1, 62):
        clock.now = minute * EVERY
        last_hour.sample()
    requests.labels("sendMessage", "retry_after").inc()
    requests.labels("sendMessage", "ok").inc(50)
    for _ in range(200):
        taps.labels("callback_query").observe(0.01)
    taps.labels("message").observe(4.0)   # not a tap
    assert clock.now > HOUR
    assert last_hour.figures() == (1, 0.05)


def test_a_percentile_of_bucket_counts() -> None:
    assert percentile({}, 0.99) is None
    assert percentile({0.1: 98.0, 1.0: 99.0, math.inf: 100.0}, 0.99) == 1.0
    assert percentile({0.1: 0.0, 1.0: 0.0, math.inf: 100.0}, 0.99) == 1.0   # the slowest


def test_the_operators_routers_run_nothing_in_a_thread() -> None:
    assert run_in_threads(operators.router({OPERATOR})) == []
    assert run_in_threads(maintenance.router()) == []


class RefusingOperators:
    """The store's operators' rows, read once, then refused (the database went away)."""

    def __init__(self) -> None:
        self.reads = 0

    async def banned(self) -> frozenset[int]:
        self.reads += 1
        if self.reads > 1:
            raise StoreUnavailable("disk I/O error")
        return frozenset({BOB})

    async def maintenance_until(self) -> float | None:
        return None


async def test_what_was_known_holds_while_the_database_refuses(
        caplog: pytest.LogCaptureFixture) -> None:
    clock = FakeClock(START)
    store = SimpleNamespace(operators=RefusingOperators())
    moderation = Moderation(store, None, None, clock)  # type: ignore[arg-type]
    assert await moderation.is_banned(BOB)
    clock.now += REFRESH_SECONDS
    assert await moderation.is_banned(BOB), "still banned: the last read holds"
    assert await moderation.is_banned(BOB) and store.operators.reads == 2, "tried once a while"
    assert "not read again" in caplog.text
