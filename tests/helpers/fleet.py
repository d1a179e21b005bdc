"""Several `python -m tg_durak webhook` processes on one database and one Redis, behind one
address (a `Balancer`), against a FakeTelegram: the deployment of issue 18, for the end-to-end
tests and the load bench alike (so: no pytest here).

    async with Fleet(tg, "postgresql://...", redis_url="redis://...", size=3,
                     workdir=tmp) as fleet:
        ...                # people play; the emulator posts to fleet.hook_url
        fleet.kill(1)      # SIGKILL: a crash
        await fleet.stop(2)    # SIGTERM, and its exit code 0 waited for
        await fleet.start(1)   # a fresh process in slot 1, on the same port

Each slot keeps its port across restarts. A slot whose process died refuses connections and the
balancer passes it over; a stop takes its slot out of the balancer before the SIGTERM and a start
puts it back once the process is up, as a rolling deploy does (a listener that closes resets the
connections it has not yet accepted: those posts would be dropped, and only offered again). The
webhook is registered once, by `python -m tg_durak set-webhook` as a deploy step would, after
every process is up. Each slot's output (stdout and stderr, every process it had, in turn) is
kept in a file: `log(i)` reads it back for a failure's report. Each process rewrites its counters
(DURAK_STATS_FILE, tg_durak/ops/stats.py) every 2 s and as it stops: `stats(i)` reads the last.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import socket
import subprocess
import sys
import uuid
from collections.abc import Iterable, Mapping
from pathlib import Path
from types import TracebackType
from typing import IO

import aiohttp

from tests.helpers.balancer import Balancer
from tg_durak.emulator import FakeTelegram

SECRET = "fleet-webhook_Secret1"
HOOK_PATH = "/telegram/updates"
# Game timers at a tenth of real time, a private chat's edits 20 a second: as tests/bot/conftest.
TIME_SCALE = 0.1
EDIT_INTERVAL = 0.05
# Python and aiogram take seconds of CPU to load, several processes at once on two busy cores
# many times that: a guard against a hang, as tests/processes.START_TIMEOUT.
START_TIMEOUT = 300.0
# A stop takes under 5 s (tg_durak/app.py BotApp); a starved machine more.
STOP_TIMEOUT = 60.0


class FleetError(RuntimeError):
    """A process of the fleet did not come up, or did not stop as it should; says which and
    ends with what it wrote."""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def unique_token() -> str:
    """A bot token of its own: the shared budgets' keys in Redis are named by the bot's id (the
    token's digits), so fleets of parallel tests on one Redis never meet."""
    return f"{random.randrange(10**9, 10**10)}:TEST-{uuid.uuid4().hex}"


def redis_prefix(token: str) -> str:
    """Where the bot of `token` keeps its keys in Redis (tg_durak/app.py `_shared_gate`)."""
    return f"durak:{token.split(':', 1)[0]}:"


async def forget_redis(redis_url: str, token: str) -> int:
    """Delete the bot's keys from Redis (after a test); returns how many there were."""
    # Here, not at the top: a fleet without Redis needs no package.
    import redis.asyncio as redis_asyncio

    client = redis_asyncio.Redis.from_url(redis_url)
    try:
        keys = [key async for key in client.scan_iter(match=f"{redis_prefix(token)}*")]
        if keys:
            await client.delete(*keys)
        return len(keys)
    finally:
        await client.aclose()


class Fleet:
    """`size` webhook processes of the bot behind a balancer; see the module docstring.

    `db_url` is the shared database (a postgresql:// address: SQLite is one process's),
    `redis_url` where they share Telegram's budgets (None: each keeps its own), `workdir` where
    the logs go, `env` more settings for every process.
    """

    def __init__(self, tg: FakeTelegram, db_url: str, *, redis_url: str | None = None,
                 size: int = 3, workdir: Path | str, env: Mapping[str, str] | None = None,
                 time_scale: float = TIME_SCALE, edit_interval: float = EDIT_INTERVAL,
                 start_timeout: float = START_TIMEOUT) -> None:
        if tg.url is None:
            raise RuntimeError("start() the FakeTelegram first")
        self.tg = tg
        self.db_url = db_url
        self.redis_url = redis_url
        self.size = size
        self.workdir = Path(workdir)
        self.start_timeout = start_timeout
        self.ports = [free_port() for _ in range(size)]
        self.procs: list[subprocess.Popen | None] = [None] * size
        self.balancer = Balancer(self._upstreams(range(size)))
        self._in_rotation = set(range(size))
        self._logs: list[IO[bytes] | None] = [None] * size
        self._extra = {
            "DURAK_TIME_SCALE": str(time_scale),
            "DURAK_EDIT_INTERVAL": str(edit_interval),
            "LOG_LEVEL": "WARNING",
            **(env or {}),
        }

    # ------------------------------------------------------------------ the whole fleet

    @property
    def hook_url(self) -> str:
        """The public address the emulator posts to: the balancer's."""
        return self.balancer.url + HOOK_PATH

    async def open(self) -> None:
        """The balancer, every process up, then the webhook registered."""
        self.workdir.mkdir(parents=True, exist_ok=True)
        await self.balancer.start()
        try:
            await asyncio.gather(*(self.start(i) for i in range(self.size)))
            await self.set_webhook()
        except BaseException:
            await self.close()
            raise

    async def close(self) -> None:
        """Every process killed (a test that got here cleanly has stopped them itself), the
        balancer stopped, the logs closed."""
        for i in range(self.size):
            if self.running(i):
                self.kill(i)
        await self.balancer.stop()
        for i, log in enumerate(self._logs):
            if log is not None:
                log.close()
                self._logs[i] = None

    async def __aenter__(self) -> Fleet:
        await self.open()
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None,
                        exc: BaseException | None, tb: TracebackType | None) -> None:
        await self.close()

    async def set_webhook(self) -> str:
        """`python -m tg_durak set-webhook` with the balancer's address, as a deploy step runs
        it; returns what it printed."""
        # Not subprocess.run: the emulator that answers it runs on this loop.
        registering = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "tg_durak", "set-webhook",
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
            env=self._env(None))
        out, err = await asyncio.wait_for(registering.communicate(), self.start_timeout)
        if registering.returncode != 0:
            raise FleetError(f"set-webhook exited {registering.returncode}: {err.decode()}")
        return out.decode()

    def logs(self) -> str:
        """Every slot's log, headed by its slot, for a failure's report."""
        return "\n".join(f"--- process {i} (port {self.ports[i]}):\n{self.log(i)}"
                         for i in range(self.size))

    # ------------------------------------------------------------------ one slot

    def running(self, i: int) -> bool:
        proc = self.procs[i]
        return proc is not None and proc.poll() is None

    async def start(self, i: int) -> subprocess.Popen:
        """A fresh process in slot `i` (its last one must have ended), returned once it takes
        posts: it answers one with our secret and no update 400, where a process still starting
        (or already stopping) answers 503."""
        if self.running(i):
            raise FleetError(f"process {i} still runs")
        log = self._logs[i]
        if log is None:
            log = self._logs[i] = open(self.workdir / f"process-{i}.log", "ab")  # noqa: SIM115
        log.write(f"=== started on port {self.ports[i]}\n".encode())
        log.flush()
        self._stats_path(i).unlink(missing_ok=True)   # the last process's
        proc = subprocess.Popen([sys.executable, "-m", "tg_durak", "webhook"],
                                env=self._env(i), stdout=log, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL)
        self.procs[i] = proc
        try:
            await self._until_up(i, proc)
        except BaseException:
            if proc.poll() is None:
                proc.kill()
            await self._exit_code(proc, STOP_TIMEOUT)
            raise
        self._rotate(i, True)
        return proc

    def kill(self, i: int) -> None:
        """SIGKILL: the process dies where it is, nothing of it stops in order."""
        proc = self.procs[i]
        if proc is None:
            raise FleetError(f"process {i} never started")
        proc.kill()
        proc.wait()   # at once: SIGKILL cannot be caught

    async def stop(self, i: int, timeout: float = STOP_TIMEOUT) -> None:
        """SIGTERM, and the process's end waited for: FleetError unless it exits 0."""
        proc = self.procs[i]
        if proc is None:
            raise FleetError(f"process {i} never started")
        self._rotate(i, False)   # posts sent to it before still finish there
        proc.send_signal(signal.SIGTERM)
        code = await self._exit_code(proc, timeout)
        if code != 0:
            raise FleetError(f"process {i} exited {code} on SIGTERM:\n{self.log(i)}")

    def _rotate(self, i: int, taking_posts: bool) -> None:
        if taking_posts:
            self._in_rotation.add(i)
        else:
            self._in_rotation.discard(i)
        self.balancer.set_upstreams(self._upstreams(sorted(self._in_rotation)))

    def _upstreams(self, slots: Iterable[int]) -> list[str]:
        return [f"http://127.0.0.1:{self.ports[i]}" for i in slots]

    def stats(self, i: int) -> dict:
        """The counters slot `i`'s process wrote last ({} before its first write); a fresh
        process starts from zero."""
        path = self._stats_path(i)
        return json.loads(path.read_text()) if path.exists() else {}

    def _stats_path(self, i: int) -> Path:
        return self.workdir / f"process-{i}.stats.json"

    def log(self, i: int) -> str:
        """What slot `i`'s processes wrote so far."""
        path = self.workdir / f"process-{i}.log"
        return path.read_text(errors="replace") if path.exists() else ""

    # ------------------------------------------------------------------ inside

    def _env(self, i: int | None) -> dict[str, str]:
        assert self.tg.url is not None
        env = {
            **os.environ,
            "BOT_TOKEN": self.tg.token,
            "TELEGRAM_API_URL": self.tg.url,
            "DURAK_DB": self.db_url,
            "DURAK_WEBHOOK_URL": self.hook_url,
            "DURAK_WEBHOOK_SECRET": SECRET,
            "DURAK_WEB_HOST": "127.0.0.1",
            **self._extra,
        }
        if self.redis_url is not None:
            env["DURAK_REDIS"] = self.redis_url
        if i is not None:
            env["DURAK_WEB_PORT"] = str(self.ports[i])
            env["DURAK_STATS_FILE"] = str(self._stats_path(i))
        return env

    async def _until_up(self, i: int, proc: subprocess.Popen) -> None:
        url = f"http://127.0.0.1:{self.ports[i]}{HOOK_PATH}"
        headers = {"X-Telegram-Bot-Api-Secret-Token": SECRET}
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.start_timeout
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=10)) as http:
            while True:
                if proc.poll() is not None:
                    raise FleetError(f"process {i} exited {proc.returncode} while starting:\n"
                                     f"{self.log(i)}")
                if loop.time() > deadline:
                    raise FleetError(f"process {i} took no post in {self.start_timeout} s:\n"
                                     f"{self.log(i)}")
                try:
                    async with http.post(url, data=b"not an update", headers=headers) as answer:
                        if answer.status == 400:
                            return
                except (aiohttp.ClientError, TimeoutError):
                    pass   # not listening yet
                await asyncio.sleep(0.05)

    @staticmethod
    async def _exit_code(proc: subprocess.Popen, timeout: float) -> int:
        return await asyncio.get_running_loop().run_in_executor(None, proc.wait, timeout)
