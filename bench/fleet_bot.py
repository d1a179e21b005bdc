"""bench/load.py's bot as several webhook processes: `--workers N` (and `--db`, `--kill-after`).

`FleetBot` stands where load.py's `BotProcess` does (the same methods: ready, cpu, rss_kb, stats,
problems, stop) for N `python -m tg_durak webhook` processes behind a round-robin balancer,
started by tests/helpers/fleet.py (the end-to-end tests' harness): one database, one Redis for
Telegram's budgets when the database is PostgreSQL, the webhook registered once. Their figures
are summed (CPU, memory, counters); the database's own CPU is counted too, from its backends.

`fresh_database` makes the run's own PostgreSQL database on the server `--db` names (dropped
after, unless kept); `Failover` measures how long the tables of a process killed outright wait
before another process takes them up.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from aiohttp import web

from tg_durak.emulator import FakeTelegram
from tg_durak.ops.stats import PREFIX as STATS_PREFIX

ROOT = Path(__file__).resolve().parent.parent
# Counters that are a level, a percentile or a maximum, not a count: several processes' are not
# summed but the largest taken.
NOT_SUMMED = ("p99", "p95", "p50", "slowest", "max", "mean", "_s", "workers", "in_flight")
# A table that moved this long after its time was late: a live process's own timer fires on
# time (within a loop's turn), another's claim after LATE_SECONDS (tables/wake_claims.py).
LATE_AFTER = 0.5
FAILOVER_POLL = 0.05     # seconds between two reads of the tables' versions after a kill
FAILOVER_HORIZON = 5.0   # tables due up to this long after the kill are watched
FAILOVER_TIMEOUT = 30.0  # a table not moved by then is reported as never moved


def is_postgres(db: str) -> bool:
    return db.startswith(("postgresql://", "postgres://"))


def _fleet_module():
    if str(ROOT) not in sys.path:   # tests/ is no installed package
        sys.path.insert(0, str(ROOT))
    from tests.helpers import fleet

    return fleet


def unique_token() -> str:
    """A bot token of the run's own: the budgets' keys in Redis are named by it."""
    return _fleet_module().unique_token()


async def forget_redis(redis_url: str, token: str) -> int:
    """The run's keys deleted from Redis; how many there were."""
    return await _fleet_module().forget_redis(redis_url, token)


# ---- CPU of processes, from /proc ---------------------------------------------------------------

def _stat(pid: int) -> list[str] | None:
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return text.rsplit(")", 1)[1].split()


def cpu_of(pid: int) -> float | None:
    """CPU seconds (user + system) of a process so far; None once it is gone."""
    fields = _stat(pid)
    if fields is None:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def children_of(pid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            fields = _stat(int(entry))
            if fields is not None and int(fields[1]) == pid:
                found.append(int(entry))
    return found


def pids_named(name: str) -> list[int]:
    """Every process whose command name (/proc/PID/comm) is `name`."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            with contextlib.suppress(OSError):
                if Path(f"/proc/{entry}/comm").read_text().strip() == name:
                    found.append(int(entry))
    return found


class CpuLedger:
    """CPU seconds of a changing set of processes: each one's last reading is kept, so a
    process that died (killed, or a backend whose connection closed) still counts what it
    used while it lived."""

    def __init__(self) -> None:
        self.last: dict[int, float] = {}

    def read(self, pids: list[int]) -> float:
        for pid in pids:
            seconds = cpu_of(pid)
            if seconds is not None:
                self.last[pid] = max(seconds, self.last.get(pid, 0.0))
        return sum(self.last.values())


# ---- the database ---------------------------------------------------------------------------

@contextlib.contextmanager
def fresh_database(server: str, keep: bool = False) -> Iterator[str]:
    """A new, empty database on the PostgreSQL server `server` (a postgresql:// address whose
    database is used to create it), its address yielded; dropped after unless `keep`."""
    import psycopg

    name = f"durak_bench_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(server, autocommit=True, connect_timeout=5) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield urlunsplit(urlsplit(server)._replace(path=f"/{name}"))
    finally:
        if not keep:
            with psycopg.connect(server, autocommit=True, connect_timeout=5) as admin:
                admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


async def backend_pids(db_url: str) -> list[int]:
    """The server processes that serve `db_url`'s database now (its connections' backends)."""
    import psycopg

    name = urlsplit(db_url).path.lstrip("/")
    async with await psycopg.AsyncConnection.connect(db_url, autocommit=True) as conn:
        cursor = await conn.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()",
            (name,))
        return [pid for (pid,) in await cursor.fetchall()]


# ---- the processes ----------------------------------------------------------------------------

def update_chat(update: dict) -> int:
    """The chat an update belongs to (its sender's, if it names none)."""
    for kind in ("message", "edited_message", "my_chat_member", "chat_member"):
        if kind in update:
            return int(update[kind]["chat"]["id"])
    query = update.get("callback_query")
    if query is not None:
        message = query.get("message")
        return int(message["chat"]["id"] if message else query["from"]["id"])
    for part in update.values():
        if isinstance(part, dict) and "from" in part:
            return int(part["from"]["id"])
    return 0


def chat_balancer(balancer_class: type, upstreams: list[str]) -> object:
    """A balancer (tests/helpers/balancer.py) that sends each chat's updates to one process
    (its id modulo their number), the others when that one refuses: the routing a table's
    changes would have if each stayed with the process that holds it. For comparison with
    round robin only; Telegram posts every update to one address, so a deployment would need
    a proxy that reads the body."""

    class ChatBalancer(balancer_class):   # type: ignore[misc, valid-type]
        async def _forward(self, request: web.Request) -> web.Response:
            body = await request.read()   # aiohttp keeps it: the base's read returns it
            try:
                chat = update_chat(json.loads(body))
            except (ValueError, KeyError, TypeError):
                chat = 0
            # The base takes its first upstream from next(self._turns) before it awaits
            # anything: nothing runs in between.
            self._turns = iter([chat % max(1, len(self.upstreams))])
            return await super()._forward(request)

    return ChatBalancer(upstreams)



def _merge(parts: list[dict]) -> dict:
    """Several processes' stats objects as one: counts summed, levels and percentiles the
    largest (see NOT_SUMMED)."""
    out: dict = {}
    for part in parts:
        for key, value in part.items():
            old = out.get(key)
            if isinstance(value, dict):
                out[key] = _merge([old if isinstance(old, dict) else {}, value])
            elif isinstance(value, int | float) and not isinstance(value, bool):
                if old is None:
                    out[key] = value
                elif any(mark in key for mark in NOT_SUMMED):
                    out[key] = max(old, value)
                else:
                    out[key] = old + value
            else:
                out.setdefault(key, value)
    return out


class FleetBot:
    """N webhook processes of the bot behind a balancer; load.py's BotProcess's interface."""

    def __init__(self, tg: FakeTelegram, db: str, workdir: str, size: int,
                 redis_url: str | None, env: dict[str, str] | None = None,
                 route: str = "round-robin") -> None:
        self.tg = tg
        self.db = db
        self.size = size
        self.fleet = _fleet_module().Fleet(tg, db, redis_url=redis_url, size=size, workdir=workdir,
                           env={"LOG_LEVEL": "WARNING", **(env or {})},
                           time_scale=1, edit_interval=1)
        if route == "chat":
            fleet = _fleet_module()
            self.fleet.balancer = chat_balancer(fleet.Balancer, self.fleet.balancer.upstreams)
        self.log_path = Path(workdir) / "process-0.log"
        self.bots = CpuLedger()
        self.computers = CpuLedger()
        self.database = CpuLedger()
        self.killed: list[int] = []

    def start(self) -> None:
        """Nothing yet: `ready` starts the processes (it has to await them)."""

    async def ready(self, timeout: float) -> float:
        started = time.monotonic()
        await asyncio.wait_for(self.fleet.open(), timeout)
        return time.monotonic() - started

    def live(self) -> list[int]:
        """The slots whose process runs."""
        return [i for i in range(self.size) if self.fleet.running(i)]

    @property
    def pid(self) -> int:
        """The first live process (the one --profile samples)."""
        proc = self.fleet.procs[self.live()[0]]
        assert proc is not None
        return proc.pid

    def pids(self) -> list[int]:
        return [proc.pid for i in self.live() if (proc := self.fleet.procs[i]) is not None]

    def cpu(self) -> tuple[float, float]:
        """CPU seconds so far: the bot processes', and their computer players' (a process
        killed since counts what it used until its last reading)."""
        pids = self.pids()
        return self.bots.read(pids), self.computers.read(
            [child for pid in pids for child in children_of(pid)])

    async def database_cpu(self) -> float:
        """CPU seconds of the database's backends so far (PostgreSQL; 0 for SQLite, which
        runs inside the bot)."""
        if not is_postgres(self.db):
            return 0.0
        return self.database.read(await backend_pids(self.db))

    def rss_kb(self) -> int:
        total = 0
        for pid in self.pids():
            with contextlib.suppress(OSError):
                for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1])
        return total

    async def stats(self, timeout: float = 10.0) -> dict:
        """Every live process's counters (SIGUSR1, then its next stats line), merged; each
        process's own under `processes`."""
        slots = self.live()
        before = {i: len(self._stats_lines(i)) for i in slots}
        for i in slots:
            proc = self.fleet.procs[i]
            assert proc is not None
            with contextlib.suppress(ProcessLookupError):
                os.kill(proc.pid, signal.SIGUSR1)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        found: dict[int, dict] = {}
        while loop.time() < deadline and len(found) < len(slots):
            for i in slots:
                lines = self._stats_lines(i)
                if i not in found and len(lines) > before[i]:
                    found[i] = json.loads(lines[-1][len(STATS_PREFIX):])
            await asyncio.sleep(0.05)
        merged = _merge(list(found.values()))
        merged["processes"] = len(found)
        return merged

    def _stats_lines(self, i: int) -> list[str]:
        return [line for line in self.fleet.log(i).splitlines() if line.startswith(STATS_PREFIX)]

    def log_tail(self, lines: int = 30) -> str:
        return "\n".join(self.fleet.logs().splitlines()[-lines:])

    def problems(self) -> dict[str, int]:
        """Tracebacks and log lines by level in every process's output."""
        found: dict[str, int] = {}
        for i in range(self.size):
            for line in self.fleet.log(i).splitlines():
                if line.startswith("Traceback"):
                    found["tracebacks"] = found.get("tracebacks", 0) + 1
                for level in ("WARNING", "ERROR", "CRITICAL"):
                    if f" {level} " in line:
                        found[level.lower()] = found.get(level.lower(), 0) + 1
        return found

    def kill(self, i: int) -> None:
        """SIGKILL process `i` (its CPU read first: a dead process's is gone)."""
        self.cpu()
        self.fleet.kill(i)
        self.killed.append(i)

    async def stop(self) -> None:
        """SIGTERM to each live process at once, then the balancer; a process that does not
        stop in time is killed (Fleet.close)."""
        with contextlib.suppress(Exception):
            await asyncio.gather(*(self.fleet.stop(i) for i in self.live()),
                                 return_exceptions=True)
        await self.fleet.close()


# ---- failover ---------------------------------------------------------------------------------

class Failover:
    """Kill a process and watch the tables in the database until every table whose time came
    within FAILOVER_HORIZON of the kill has moved (its version changed), or FAILOVER_TIMEOUT.

    A table whose timer a live process holds moves on time; one the dead process held waits
    until another claims it (tables/wake_claims.py). For each watched table its lateness is
    the time from max(kill, its stored wake) to the first read that saw it moved; the figure
    is the largest: how long a kill held any table up. Reads every FAILOVER_POLL seconds, so
    the figures are that coarse.
    """

    def __init__(self, db_url: str) -> None:
        self.db_url = db_url

    async def run(self, bot: FleetBot, slot: int) -> dict:
        import psycopg

        async with await psycopg.AsyncConnection.connect(self.db_url, autocommit=True) as conn:
            before = {table: (version, wake) for table, version, wake in await self._read(conn)}
            killed_at = time.time()
            bot.kill(slot)
            watched = {table: max(killed_at, wake) for table, (_, wake) in before.items()
                       if wake is not None and wake <= killed_at + FAILOVER_HORIZON}
            moved: dict[int, float] = {}
            while time.time() < killed_at + FAILOVER_TIMEOUT and len(moved) < len(watched):
                await asyncio.sleep(FAILOVER_POLL)
                now = time.time()
                for table, version, _ in await self._read(conn):
                    if table in watched and table not in moved and version != before[table][0]:
                        moved[table] = now
        lateness = sorted(moved[t] - due for t, due in watched.items() if t in moved)
        late = [x for x in lateness if x > LATE_AFTER]
        return {
            "killed_process": slot,
            "running_tables": len(before),
            "tables_due": len(watched),                 # their time came within the horizon
            "tables_late": len(late),                   # the dead process's, taken up by others
            "tables_never_moved": len(watched) - len(moved),
            "failover_s": round(max(lateness), 2) if lateness else None,
            "late_p50_s": round(late[len(late) // 2], 2) if late else None,
            "late_s": [round(x, 2) for x in late],
            "first_late_move_after_kill_s": round(min(
                moved[t] - killed_at for t, due in watched.items()
                if t in moved and moved[t] - due > LATE_AFTER), 2) if late else None,
            "all_due_moved_after_kill_s": round(max(moved.values()) - killed_at, 2)
            if moved and len(moved) == len(watched) else None,
        }

    @staticmethod
    async def _read(conn: object) -> list[tuple[int, int, float | None]]:
        cursor = await conn.execute(   # type: ignore[attr-defined]
            "SELECT id, version, wake_at FROM tables WHERE status = 'running'")
        return await cursor.fetchall()
