"""A job every process runs again and again from the store (the due tables' claims, the quick
games' queue, the heartbeat, the daily pruning): a round that fails is logged, never the end of
the job."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from tg_durak.storage import DatabaseDown, StoreUnavailable


async def repeat(job: Callable[[], Awaitable[object]], seconds: float, failed: str,
                 log: logging.Logger) -> None:
    """`job` every `seconds` until cancelled. The next round may get through whatever failed:
    an outage the store has logged itself (DatabaseDown) is passed over, another refusal of
    the store is one line, anything else a traceback, each under `failed`."""
    while True:
        try:
            await job()
        except DatabaseDown:
            pass
        except StoreUnavailable as exc:
            log.warning("%s: %s", failed, exc)
        except Exception:
            log.exception(failed)
        await asyncio.sleep(seconds)
