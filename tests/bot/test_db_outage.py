"""The database or Redis goes away under three webhook processes while people play (issue 41).

PostgreSQL and Redis are the test's own (a server of each started here, on ports of their own:
the machine's servers are never stopped). PostgreSQL crashes (`pg_ctl stop -m immediate`) for
8 s, then for 20 s; Redis is killed and started again. Throughout, every tap is answered within
Telegram's 15 s (the emulator refuses older answers, as Telegram does); a tap made while the
database is down is answered "not saved" at once and never applied; a command sent meanwhile is
answered 503 quickly, so Telegram offers it again, and applied once when the database is back;
answers flow again within 2 s of its return; each process says once that the database does not
answer and once that it answers again, with no traceback; every table moves on and `check` is
clean.
"""

from __future__ import annotations

import asyncio
import contextlib
import glob
import itertools
import logging
import os
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.bot.conftest import ALICE
from tests.bot.crowd import HANG, TEXTS, Crowd, Tap
from tests.bot.faults import quick_game, shown_version
from tests.bot.test_scale_out import (
    GROUPS,
    PEOPLE,
    PRIVATE,
    TELEGRAM,
    checked,
    goes_on,
    set_up_tables,
    versions,
)
from tests.bot.test_store_failures import (
    current_move,
    locked_by_another_process,
    stored_version,
)
from tests.bot.test_webhook import hook_bot, posts_of, unregistered_bot  # noqa: F401 (fixtures)
from tests.helpers.fleet import Fleet, free_port, unique_token
from tg_durak.app import BotApp
from tg_durak.emulator import FakeTelegram
from tg_durak.i18n.translate import translator
from tg_durak.storage import DatabaseDown, Store

NOT_SAVED = translator("en")("error.not_saved")
QUERY_SECONDS = 15.0    # Telegram refuses a tap's answer after this long (the emulator too)
FLOWING_SECONDS = 2.0   # answers flow again this soon after the database is back (issue 41)
OUTAGES = (8.0, 20.0)   # seconds the database stays down, one outage after the other
REDIS_DOWN = 5.0
NEWCOMER = 831   # sends /start while the database is down
STEADY_TAPS = 30   # taps between two outages: the fleet answers as before
MARGIN = 0.5   # seconds: a tap is on its way to a process at most this long (a busy machine)


# ---- servers of the test's own ------------------------------------------------------------

def _postgres_bin() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"),
                   key=lambda p: int(Path(p).parts[4]) if Path(p).parts[4].isdigit() else 0)
    if found:
        return Path(found[-1]).parent
    on_path = shutil.which("pg_ctl")
    return Path(on_path).parent if on_path else None


class OwnPostgres:
    """A PostgreSQL cluster of the test's own: `initdb` into a temporary directory and a port of
    its own, run as the `postgres` user when the test runs as root (PostgreSQL refuses root)."""

    def __init__(self, bindir: Path) -> None:
        self.bindir = bindir
        self.root = Path(tempfile.mkdtemp(prefix="durak-pg-"))
        self.data = self.root / "data"
        self.port = free_port()
        self.url = f"postgresql://postgres@127.0.0.1:{self.port}/postgres"
        self._as: list[str] = []
        if os.geteuid() == 0:
            shutil.chown(self.root, "postgres")
            self._as = ["runuser", "-u", "postgres", "--"]

    async def _run(self, tool: str, *args: str) -> None:
        proc = await asyncio.create_subprocess_exec(
            *self._as, str(self.bindir / tool), *args, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT)
        out, _ = await asyncio.wait_for(proc.communicate(), HANG)
        assert proc.returncode == 0, f"{tool} {args}: {out.decode()}"

    async def init(self) -> None:
        await self._run("initdb", "-D", str(self.data), "-A", "trust", "-U", "postgres",
                        "-E", "UTF8", "--no-sync")
        await self.start()

    async def start(self) -> None:
        """Started, returned once it takes connections."""
        await self._run("pg_ctl", "-D", str(self.data), "-l", str(self.root / "server.log"),
                        "-w", "-o", f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1"
                        " -c fsync=off -c max_connections=100", "start")

    async def crash(self) -> None:
        """Stopped as by a crash: no checkpoint, every connection cut."""
        await self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "stop")

    async def close(self) -> None:
        with contextlib.suppress(AssertionError):
            await self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "stop")
        shutil.rmtree(self.root, ignore_errors=True)


class OwnRedis:
    """A Redis of the test's own on a port of its own, its keys saved in `root` as it stops
    (as a restarted Redis keeps the budgets' windows: one that forgot them would let the bot
    spend a group's minute twice)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.proc: subprocess.Popen | None = None

    async def start(self) -> None:
        self.proc = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--dir",
             str(self.root), "--save", "3600 1", "--appendonly", "no"],
            stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
        import redis.asyncio as redis_asyncio

        client = redis_asyncio.Redis.from_url(self.url)
        try:
            loop = asyncio.get_running_loop()
            deadline = loop.time() + HANG
            while True:
                try:
                    await client.ping()
                    return
                except Exception:
                    if loop.time() > deadline or self.proc.poll() is not None:
                        raise
                    await asyncio.sleep(0.05)
        finally:
            await client.aclose()

    async def stop(self) -> None:
        """SIGTERM: Redis saves its keys and exits."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            await asyncio.get_running_loop().run_in_executor(None, self.proc.wait, HANG)

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()


def _missing(what: str) -> None:
    if os.environ.get("DURAK_TEST_NO_POSTGRES") == "1":
        pytest.skip(f"{what} (DURAK_TEST_NO_POSTGRES=1)")
    pytest.fail(f"{what}: install PostgreSQL's server, or set DURAK_TEST_NO_POSTGRES=1")


@pytest.fixture
async def postgres() -> AsyncIterator[OwnPostgres]:
    bindir = _postgres_bin()
    if bindir is None:
        _missing("no PostgreSQL server binaries (initdb, pg_ctl)")
    assert bindir is not None
    server = OwnPostgres(bindir)
    try:
        await server.init()
        yield server
    finally:
        await server.close()


@pytest.fixture
async def redis(tmp_path: Path) -> AsyncIterator[OwnRedis]:
    if shutil.which("redis-server") is None:
        if os.environ.get("DURAK_TEST_NO_REDIS") == "1":
            pytest.skip("no redis-server (DURAK_TEST_NO_REDIS=1)")
        pytest.fail("no redis-server: install Redis, or set DURAK_TEST_NO_REDIS=1")
    server = OwnRedis(tmp_path)
    await server.start()
    yield server
    server.kill()


@pytest.fixture
async def fleet_tg() -> AsyncIterator[FakeTelegram]:
    """The emulator with Telegram's own 15 s for a tap's answer and its flood limits."""
    async with FakeTelegram(unique_token(), callback_ttl=QUERY_SECONDS) as fake:
        for user_id in [*PEOPLE, NEWCOMER]:
            fake.add_user(user_id, f"P{user_id}", language_code="en")
        fake.rate_limits = TELEGRAM
        yield fake


@pytest.fixture
async def fleet(fleet_tg: FakeTelegram, postgres: OwnPostgres, redis: OwnRedis,
                tmp_path: Path) -> AsyncIterator[Fleet]:
    async with Fleet(fleet_tg, postgres.url, redis_url=redis.url, size=3,
                     workdir=tmp_path / "fleet") as fleet:
        yield fleet
        print(fleet.logs())   # shown when the test failed


@pytest.fixture
async def shared(fleet: Fleet, postgres: OwnPostgres) -> AsyncIterator[Store]:
    """The test's own look at the fleet's database."""
    s = await Store.open(postgres.url)
    yield s
    await s.close()


# ---- what the test measures -----------------------------------------------------------------

@dataclass
class Outage:
    what: str
    down_at: float    # wall clock (the emulator's): just before the server went
    start_at: float   # just before it was started again: it answered nothing until then
    back_at: float    # once it took connections again


def answered_at(tg: FakeTelegram) -> dict[str, float]:
    """When each tap's answer reached Telegram (the answers it took)."""
    return {c.params["callback_query_id"]: c.time
            for c in tg.calls_to("answerCallbackQuery") if c.ok}


def refused_now(tap: Tap) -> bool:
    """Whether the tap was answered "not saved"."""
    return tap.query.answer is not None and tap.query.answer.text == NOT_SAVED


def made_during(crowd: Crowd, outage: Outage) -> list[Tap]:
    """The taps made while the server was down, but for the last MARGIN seconds before its
    start (one of those may still be on its way when the server answers again)."""
    return [t for t in crowd.taps
            if outage.down_at <= t.query.created <= outage.start_at - MARGIN]


async def steady(crowd: Crowd, store: Store, since: float, fleet: Fleet) -> dict[int, float]:
    """After an outage: people tap on and every running table moves on."""
    moved = await goes_on(store, since, fleet)
    await crowd.until_taps(STEADY_TAPS)
    return moved


async def database_outage(postgres: OwnPostgres, tg: FakeTelegram, seconds: float,
                          newcomer: bool) -> tuple[Outage, int | None]:
    """The database down for `seconds`; with `newcomer`, he sends /start meanwhile: that
    update's id."""
    down_at = time.time()
    await postgres.crash()
    sent = None
    if newcomer:   # a command while the database is down: offered again until it is back
        await asyncio.sleep(0.5)
        await tg.send_text(NEWCOMER, "/start")
        sent = tg.pending_updates[-1]["update_id"]   # queued just now, nothing ran since
    await asyncio.sleep(seconds - (time.time() - down_at))
    start_at = time.time()
    await postgres.start()
    return Outage(f"PostgreSQL down {seconds:.0f}s", down_at, start_at, time.time()), sent


def log_lines(fleet: Fleet, i: int, text: str) -> int:
    return sum(text in line for line in fleet.log(i).splitlines())


# ---- the tests ------------------------------------------------------------------------------

WATCH = "tg_durak.storage.postgres_watch"


async def answered(store: Store, key: str) -> object:
    """The stored `key`, once the store answers (a probe or two after the server is back;
    HANG: a hang)."""
    async with asyncio.timeout(HANG):
        while True:
            try:
                return await store.meta.get(key)
            except DatabaseDown:
                await asyncio.sleep(0.05)


async def test_the_store_is_refused_at_once_while_the_server_is_down_and_said_so_once(
        postgres: OwnPostgres, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger=WATCH)
    store = await Store.open(postgres.url)
    try:
        await asyncio.gather(*(store.meta.set(f"k{i}", i) for i in range(5)))   # pooled ones
        # A restart between two scopes: the pool's connections are all broken; a scope after
        # it gets a fresh one, with no error of a broken connection. (The watch may have seen
        # the server down meanwhile, on a machine slow to start it: then the scope is refused
        # until its probe sees it back, as below.)
        await postgres.crash()
        await postgres.start()
        assert await answered(store, "k1") == 1
        caplog.clear()
        # Down: scopes under way, waiting for a connection and asking later are all refused
        # with DatabaseDown, none after the pool's wait (a PoolTimeout).
        await postgres.crash()
        outcomes = await asyncio.gather(*(store.meta.set(f"k{i}", -i) for i in range(20)),
                                        return_exceptions=True)
        for _ in range(3):
            with pytest.raises(DatabaseDown):
                await store.meta.get("k1")
        assert {type(o) for o in outcomes} == {DatabaseDown}, outcomes
        await postgres.start()
        assert await answered(store, "k1") == 1, "nothing written while it was down"
        said = [r.getMessage() for r in caplog.records if r.name == WATCH]
        assert len(said) == 2 and "PostgreSQL does not answer" in said[0] \
            and "PostgreSQL answers again" in said[1], said
        assert all("\n" not in line for line in said), "one line each"
    finally:
        await store.close()


async def test_a_tap_the_store_refuses_by_webhook_is_answered_at_once_and_never_applied(
        tg: FakeTelegram, hook_bot: BotApp, db_path: str) -> None:  # noqa: F811
    """One process on SQLite, its file locked by another: the tap's post is taken (200) with
    "not saved" as its answer, and Telegram never offers it again, so it is never applied."""
    store = await Store.open(db_path)
    try:
        await quick_game(tg, ALICE)
        while True:
            message, button = await current_move(tg, store, ALICE, TEXTS)
            async with locked_by_another_process(hook_bot, db_path):
                version = await stored_version(store, ALICE)
                if shown_version(message) != version:
                    continue   # his turn's clock ran out while the lock was taken
                answer = await tg.press(ALICE, message, button)
                update_id = max(p.update_id for p in tg.webhooks.posts)
                if answer.text == translator("en")("tap.choose_target"):
                    continue   # a card that beats several asks which first: nothing written
                assert (answer.text, answer.show_alert) == (NOT_SAVED, True)
                assert await stored_version(store, ALICE) == version, "nothing was written"
                break
        await hook_bot.publisher.flush()
        await asyncio.sleep(1.0)   # Telegram's next offer would come within a second
        assert posts_of(tg, update_id) == [200], "taken once, not offered again"
    finally:
        await store.close()


async def test_database_and_redis_outages_answer_every_tap_in_time_and_lose_no_table(
        fleet_tg: FakeTelegram, fleet: Fleet, shared: Store, postgres: OwnPostgres,
        redis: OwnRedis) -> None:
    tg, store = fleet_tg, shared
    await set_up_tables(tg)
    crowd = Crowd(tg, PEOPLE, again=PRIVATE)
    crowd.start()
    await crowd.until_taps(STEADY_TAPS)
    outages: list[Outage] = []
    command: int | None = None
    for n, seconds in enumerate(OUTAGES):
        outage, sent = await database_outage(postgres, tg, seconds, newcomer=n == 0)
        outages.append(outage)
        command = command or sent
        await steady(crowd, store, asyncio.get_running_loop().time(), fleet)
    redis_at = time.time()
    await redis.stop()
    await asyncio.sleep(REDIS_DOWN)
    start_at = time.time()
    await redis.start()
    outages.append(Outage("Redis down", redis_at, start_at, time.time()))
    await steady(crowd, store, asyncio.get_running_loop().time(), fleet)
    await crowd.stop()
    await crowd.settled()

    # Every tap answered once, within Telegram's 15 s: none refused as too old.
    at = answered_at(tg)
    late = [(t.update_id, round(at[t.query.id] - t.query.created, 1)) for t in crowd.taps
            if t.query.id in at and at[t.query.id] - t.query.created > QUERY_SECONDS]
    unanswered = [t.update_id for t in crowd.taps if t.query.id not in at]
    refused = [str(c) for c in tg.calls_to("answerCallbackQuery") if not c.ok]
    assert (late, unanswered, refused) == ([], [], []), fleet.logs()
    assert all(n <= 1 for n in crowd.answers().values()), "a tap answered twice"

    figures = []
    for outage, following in itertools.pairwise(outages):
        during = made_during(crowd, outage)
        # Answered "not saved" at once, and never applied: not on the database's return either.
        assert during, f"{outage.what}: people tapped"
        waits = [at[t.query.id] - t.query.created for t in during]
        assert max(waits) <= FLOWING_SECONDS, f"{outage.what}: taps answered late {waits}"
        applied = [t.update_id for t in during if await store.updates.handled(t.update_id)]
        assert applied == [], f"{outage.what}: taps made meanwhile applied {applied}"
        # Answers flow again: a tap made 2 s after the return is taken, not refused.
        after = [t for t in crowd.taps if outage.back_at < t.query.created
                 and at[t.query.id] < following.down_at]
        refused_after = [t for t in after if refused_now(t)]
        last_refused = max((at[t.query.id] for t in refused_after), default=outage.back_at)
        first_taken = min(at[t.query.id] for t in after if not refused_now(t))
        assert last_refused - outage.back_at <= FLOWING_SECONDS, \
            f"{outage.what}: refused {last_refused - outage.back_at:.2f}s after the return"
        not_saved = sum(refused_now(t) for t in during)
        figures.append(f"{outage.what}: {len(during)} taps meanwhile, {not_saved} answered "
                       f"'not saved', none applied, the slowest "
                       f"answer in {max(waits):.2f}s; last refusal "
                       f"{last_refused - outage.back_at:+.2f}s, first tap taken "
                       f"{first_taken - outage.back_at:+.2f}s after the return")
    # Redis: nothing of the database's; every tap answered as ever (the checks above).
    assert not any(refused_now(t) for t in made_during(crowd, outages[2]))

    # The command sent while the database was down: 503s, quick ones, then applied once.
    posts = [p for p in tg.webhooks.posts if p.update_id == command]
    refusals = [p for p in posts if p.status == 503 and p.time < outages[0].back_at]
    assert len(refusals) >= 4 and posts[-1].taken, [(p.status, p.time) for p in posts]
    greetings = [c.time for c in tg.calls_to("sendMessage")
                 if c.ok and c.params.get("chat_id") == NEWCOMER]
    assert len(greetings) == 1, greetings
    greeted = greetings[0] - outages[0].back_at
    figures.append(f"/start sent meanwhile: {len(refusals)} quick 503s, greeted {greeted:.2f}s "
                   "after the return")

    assert [str(c) for c in tg.calls if c.error_code == 429] == []
    # One line each way per outage in every process's log, and no traceback.
    logs = fleet.logs()
    assert "Traceback" not in logs, logs
    for i in range(fleet.size):
        assert log_lines(fleet, i, "PostgreSQL does not answer") == len(OUTAGES), fleet.log(i)
        assert log_lines(fleet, i, "PostgreSQL answers again") == len(OUTAGES), fleet.log(i)
    finished = [tid for tid, (_, status) in (await versions(store)).items()
                if status == "finished"]
    slowest = max(at[t.query.id] - t.query.created for t in crowd.taps)
    print("\n".join(figures), f"\n{len(crowd.taps)} taps, the slowest answered in "
          f"{slowest:.2f}s; {len(finished)} games finished (groups: {len(GROUPS)})")
    for i in range(fleet.size):
        await fleet.stop(i)
    code, out = await checked(postgres.url)
    assert code == 0, out

