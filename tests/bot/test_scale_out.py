"""Three webhook processes on one PostgreSQL and one Redis behind one address (issue 18), with
private tables (people against computers) and group tables (three people in a group chat)
played at once: one process is killed in the middle of a burst of taps, or all three are
restarted in turn, and every table goes on, no tap is applied twice or lost, every snapshot is
the replay of its log and Telegram never answered 429.
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path

import psycopg
import pytest

from tests.bot.conftest import CALLBACK_TTL
from tests.bot.crowd import HANG, Crowd
from tests.bot.faults import quick_game
from tests.bot.groups import join, open_lobby, start
from tests.helpers.fleet import EDIT_INTERVAL, Fleet, forget_redis, unique_token
from tests.store.conftest import pg_database, pg_url  # noqa: F401  (fixtures)
from tg_durak.emulator import FakeTelegram, RateLimits
from tg_durak.i18n.translate import translator
from tg_durak.storage import Store

REDIS = os.environ.get("DURAK_TEST_REDIS", "redis://127.0.0.1:6379/0")
# Telegram's flood limits, a private chat's scaled as the bot's edit interval is.
TELEGRAM = RateLimits(private_per_second=round(1 / EDIT_INTERVAL), group_per_minute=20,
                      global_per_second=30)
PRIVATE = [801, 802, 803, 804]   # each against a computer
GROUPS = {-1002000000001: [811, 812, 813], -1002000000002: [821, 822, 823]}
PEOPLE = [*PRIVATE, *(p for people in GROUPS.values() for p in people)]
GAME_OVER = translator("en")("tap.game_over")
# What the issue allows a table to stand still after a process dies.
GOES_ON_SECONDS = 5.0


@pytest.fixture
async def redis_url() -> str:
    import redis.asyncio as redis_asyncio

    client = redis_asyncio.Redis.from_url(REDIS, socket_timeout=5.0)
    try:
        await client.ping()
    except Exception as exc:
        if os.environ.get("DURAK_TEST_NO_REDIS") == "1":
            pytest.skip(f"no Redis at {REDIS} (DURAK_TEST_NO_REDIS=1)")
        pytest.fail(f"no Redis at {REDIS} ({exc}): start redis-server, or set "
                    "DURAK_TEST_NO_REDIS=1 on a machine without one")
    finally:
        await client.aclose()
    return REDIS


@pytest.fixture
async def tg(redis_url: str) -> AsyncIterator[FakeTelegram]:
    """The emulator with a bot token of its own (its keys in the shared Redis are the test's
    alone) and Telegram's flood limits on."""
    token = unique_token()
    async with FakeTelegram(token, callback_ttl=CALLBACK_TTL) as fake:
        for user_id in PEOPLE:
            fake.add_user(user_id, f"P{user_id}", language_code="en")
        fake.rate_limits = TELEGRAM
        yield fake
    await forget_redis(redis_url, token)


@pytest.fixture
async def fleet(tg: FakeTelegram, pg_url: str, redis_url: str,  # noqa: F811
                tmp_path: Path) -> AsyncIterator[Fleet]:
    async with Fleet(tg, pg_url, redis_url=redis_url, size=3,
                     workdir=tmp_path / "fleet") as fleet:
        yield fleet
        print(fleet.logs())   # shown when the test failed


@pytest.fixture
async def store(fleet: Fleet, pg_url: str) -> AsyncIterator[Store]:  # noqa: F811
    """The test's own look at the shared database."""
    s = await Store.open(pg_url)
    yield s
    await s.close()


async def set_up_tables(tg: FakeTelegram) -> None:
    for user_id in PRIVATE:
        await quick_game(tg, user_id)
    for chat_id, people in GROUPS.items():
        host, *others = people
        tg.add_group(chat_id, f"Club {chat_id}", members=people, creator=host)
        for person in people:
            await tg.send_text(person, "/start")
        # Chats go side by side, to any process: the host must have opened his private chat
        # before his /new is taken, or the lobby opens without his seat.
        await tg.wait_for(lambda ps=people: all(tg.last_message(p) for p in ps), timeout=HANG,
                          what="a greeting for each")
        lobby = await open_lobby(tg, host, chat_id)
        for person in others:
            await join(tg, person, lobby, f"P{person}")
        await start(tg, host, lobby, people)


async def versions(store: Store) -> dict[int, tuple[int, str]]:
    """Every table's (version, status)."""
    found = {}
    for table_id in await store.tables.ids():
        state = await store.tables.state(table_id)
        if state is not None:
            found[table_id] = state
    return found


async def goes_on(store: Store, since: float, fleet: Fleet) -> dict[int, float]:
    """How long after `since` (the loop's clock) each table running now moved on (a change,
    or its end); asserts that each did within GOES_ON_SECONDS."""
    loop = asyncio.get_running_loop()
    before = {tid: v for tid, (v, status) in (await versions(store)).items()
              if status == "running"}
    assert before, "a table is running"
    moved: dict[int, float] = {}
    while len(moved) < len(before) and loop.time() < since + HANG:
        for tid, (version, _status) in (await versions(store)).items():
            if tid in before and tid not in moved and version > before[tid]:
                moved[tid] = loop.time() - since
        await asyncio.sleep(0.05)
    late = {tid: moved.get(tid) for tid in before if moved.get(tid, HANG) > GOES_ON_SECONDS}
    assert late == {}, f"tables that stood still (s after the change): {late}\n{fleet.logs()}"
    return moved


async def standing_still(db_url: str) -> str:
    """For a failure's report: each table not finished, its version, when it changed last and
    its stored wake (seconds from now), and the last entries of its log."""
    lines = [f"tables not finished (now {time.time():.2f}):"]
    async with await psycopg.AsyncConnection.connect(db_url) as conn:
        rows = await (await conn.execute(
            "SELECT id, status, version, updated_at, wake_at FROM tables"
            " WHERE status <> 'finished' ORDER BY id")).fetchall()
        for table_id, status, version, updated_at, wake_at in rows:
            log = await (await conn.execute(
                "SELECT entry FROM actions WHERE table_id = %s ORDER BY seq DESC LIMIT 4",
                (table_id,))).fetchall()
            lines.append(f"  {table_id} {status} v{version} changed {updated_at} wake {wake_at}"
                         f" last {[e for (e,) in log]}")
    return "\n".join(lines)


async def checked(db_url: str) -> tuple[int, str]:
    """`python -m tg_durak check` on the database, as an operator runs it."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tg_durak", "check", stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT, env={**os.environ, "DURAK_DB": db_url})
    out, _ = await asyncio.wait_for(proc.communicate(), HANG)
    assert proc.returncode is not None   # communicate() returns once it has ended
    return proc.returncode, out.decode()


async def finish(tg: FakeTelegram, fleet: Fleet, crowd: Crowd, store: Store, db_url: str,
                 died: set[str]) -> None:
    """The checks both tests end with, once the crowd stopped: every tap taken and answered
    at most once, each one left unanswered taken by a process that died with it; the survivors
    stop cleanly; `check` is clean; no 429."""
    await crowd.settled()
    answers = crowd.answers()
    posts: dict[int, list] = {}
    for post in tg.webhooks.posts:
        posts.setdefault(post.update_id, []).append(post)
    # A post the balancer answered 502 reached a process that died under it.
    dropped = {u for u, ps in posts.items() if any(p.status == 502 for p in ps)}
    twice = {t.query.id for t in crowd.taps if answers[t.query.id] > 1
             and t.update_id not in dropped}
    assert twice == set(), "a tap answered twice, no process having died with it"
    unanswered = [t for t in crowd.taps if answers[t.query.id] == 0]
    assert {t.update_id for t in unanswered} <= dropped, \
        "a tap left unanswered that no dying process took"
    assert all(posts[t.update_id][-1].taken for t in crowd.taps), "every tap's update taken"
    for tap in crowd.taps:   # claimed: applied, or found stale, once
        assert await store.updates.handled(tap.update_id), tap
    # A game is over when it is: a tap answered so came after its table's last change.
    answered_at = {c.params["callback_query_id"]: c.time
                   for c in tg.calls_to("answerCallbackQuery") if c.ok}
    for tap in crowd.taps:
        answer = tap.query.answer
        if answer is not None and answer.text == GAME_OVER:
            row = await store.tables.get(int(tap.query.data.split(":")[1]))
            assert row.status == "finished" and row.updated_at <= answered_at[tap.query.id], \
                (tap, row.status, row.updated_at)
    assert set(fleet.balancer.dropped) <= died, "only a killed process drops posts"
    for i in range(fleet.size):
        if fleet.running(i):
            await fleet.stop(i)
    code, out = await checked(db_url)
    assert code == 0, out
    assert [str(c) for c in tg.calls if c.error_code == 429] == []
    logs = fleet.logs()
    assert "Traceback" not in logs and "ERROR" not in logs, logs


async def test_a_kill_mid_burst_stops_no_table_and_loses_or_doubles_no_tap(
        tg: FakeTelegram, fleet: Fleet, store: Store, pg_url: str) -> None:  # noqa: F811
    await set_up_tables(tg)
    crowd = Crowd(tg, PEOPLE, again=PRIVATE)
    crowd.start()
    await crowd.until_taps(40)
    victim = fleet.balancer.upstreams[1]
    while not fleet.balancer.busy[victim]:   # in the middle of it all: a post under way
        crowd.check()
        await asyncio.sleep(0.002)
    fleet.kill(1)
    killed_at = asyncio.get_running_loop().time()
    await goes_on(store, killed_at, fleet)
    # People play on until every private game and both group games have ended once.
    try:
        await tg.wait_for(lambda: crowd.check() or all(crowd.games_over[p] for p in PEOPLE),
                          timeout=HANG, what="every game at its end")
    except TimeoutError as exc:
        raise AssertionError(f"{exc}\n{await standing_still(pg_url)}\n{fleet.logs()}") from exc
    await crowd.stop()
    finished = [tid for tid, (_, status) in (await versions(store)).items()
                if status == "finished"]
    assert len(finished) >= len(PRIVATE) + len(GROUPS)
    await finish(tg, fleet, crowd, store, pg_url, died={victim})


async def test_a_rolling_restart_while_people_play_stops_no_table_and_loses_no_tap(
        tg: FakeTelegram, fleet: Fleet, store: Store, pg_url: str) -> None:  # noqa: F811
    await set_up_tables(tg)
    crowd = Crowd(tg, PEOPLE, again=PRIVATE)
    crowd.start()
    loop = asyncio.get_running_loop()
    for i in range(fleet.size):
        await crowd.until_taps(15)
        stopping = loop.time()
        await fleet.stop(i)   # its updates under way finish; the rest is the others'
        await goes_on(store, stopping, fleet)
        await fleet.start(i)
    await crowd.until_taps(15)
    await crowd.stop()
    assert sum(crowd.games_over.values()) >= 1, "a game was played to its end"
    assert dict(fleet.balancer.dropped) == {}, "a stop drops no post under way"
    await finish(tg, fleet, crowd, store, pg_url, died=set())
