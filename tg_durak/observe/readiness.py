"""Whether the bot is ready for its updates: started, not stopping, taking updates, and its
database (and Redis, where it is set) answering with the schema this code expects."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Mapping
from enum import StrEnum
from typing import Protocol

from tg_durak.storage import migrations

CHECK_SECONDS = 2.0   # a check that hangs counts as failed: a prober's own timeout is short

Check = Callable[[], Awaitable[str | None]]   # a problem, or None


class Stage(StrEnum):
    STARTING = "starting"
    READY = "ready"
    STOPPING = "stopping"


class SchemaReader(Protocol):
    async def schema_version(self) -> int: ...


class Pinged(Protocol):
    def ping(self) -> Awaitable[object]: ...


def schema_current(store: SchemaReader) -> Check:
    """The database answers, and with every migration this code ships applied (another
    process's older code may not have applied them: it keeps serving, this one waits)."""
    found = migrations.load()
    newest = found[-1].version if found else 0

    async def check() -> str | None:
        version = await store.schema_version()
        return None if version == newest else f"schema {version}, expected {newest}"
    return check


def answers(client: Pinged) -> Check:
    async def check() -> str | None:
        await client.ping()
        return None
    return check


class Readiness:
    """The bot's stage, set by the composition root as it starts and stops, and the checks
    `/readyz` runs while it is ready. `beat` records each heartbeat written."""

    def __init__(self, checks: Mapping[str, Check],
                 clock: Callable[[], float] = time.time) -> None:
        self.stage = Stage.STARTING
        self._checks = checks
        self._clock = clock
        self._taking: Callable[[], bool] = lambda: False
        self._last_beat: float | None = None

    def ready(self, taking: Callable[[], bool]) -> None:
        """Started; `taking` says whether updates are still being taken (polling runs, the
        webhook accepts)."""
        self._taking = taking
        self.stage = Stage.READY

    def serving(self) -> bool:
        """Started, not stopping and taking updates: what can be told without asking the
        database or Redis (the metrics' `durak_ready`)."""
        return self.stage == Stage.READY and self._taking()

    def stopping(self) -> None:
        self.stage = Stage.STOPPING

    def beat(self) -> None:
        self._last_beat = self._clock()

    def heartbeat_age(self) -> float | None:
        """Seconds since the last heartbeat written (None: none yet)."""
        return None if self._last_beat is None else self._clock() - self._last_beat

    async def problems(self) -> list[str]:
        """Why the bot is not ready (empty: it is)."""
        if self.stage != Stage.READY:
            return [str(self.stage)]
        found = [] if self._taking() else ["updates: not being taken"]
        results = await asyncio.gather(*(self._run(c) for c in self._checks.values()))
        found += [f"{name}: {problem}" for name, problem in zip(self._checks, results, strict=True)
                  if problem is not None]
        return found

    @staticmethod
    async def _run(check: Check) -> str | None:
        try:
            return await asyncio.wait_for(check(), CHECK_SECONDS)
        except TimeoutError:
            return f"no answer in {CHECK_SECONDS} s"
        except Exception as exc:   # whatever the driver raises: the answer is "not ready"
            return f"{type(exc).__name__}: {exc}"
