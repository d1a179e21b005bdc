"""Python's garbage collector, set for a long-running bot that holds many live tables.

A full collection walks every object that can hold references; right after start-up that is
about a million (aiogram's and pydantic's models, the resumed tables), and under load one came
every few seconds and stopped the event loop for 150-450 ms: every tap waiting then was answered
that much later. So once started the bot freezes what it holds (kept for good, never walked
again) and lets more young objects gather before a collection: the bot makes few reference
cycles, and most collections found nothing to free. Resuming the running tables, which builds
only objects that stay, runs with no collection at all.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

YOUNG = 20_000   # allocations between two collections of the youngest generation (Python: 700)


def settle_after_start() -> None:
    """Freeze what start-up built and collect the young less often."""
    gc.collect()
    gc.freeze()
    _, middle, old = gc.get_threshold()
    gc.set_threshold(YOUNG, middle, old)


@contextlib.contextmanager
def paused() -> Iterator[None]:
    """No collection meanwhile: for building many objects that all stay (resuming 10,000 tables
    made two thirds of its time collections that walked them again and again).

    Afterwards they go to the oldest generation unwalked; the first young collection would
    otherwise walk every one of them (a quarter of a second for 10,000 tables)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if not gc.get_freeze_count():   # unfreezing would also thaw what was frozen for good
            gc.freeze()
            gc.unfreeze()
        if was_enabled:
            gc.enable()
