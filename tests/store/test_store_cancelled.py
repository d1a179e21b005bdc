"""A store call whose task is cancelled half-way (a timer cancelled at shutdown) leaves no
transaction open behind it: the next write works."""

from __future__ import annotations

import asyncio
from pathlib import Path

from tg_durak.storage import Store


async def test_a_cancelled_write_leaves_the_store_usable(tmp_path: Path) -> None:
    store = await Store.open(str(tmp_path / "durak.sqlite3"))
    try:
        for i in range(60):
            task = asyncio.create_task(store.meta.set("cancelled", i))
            for _ in range(i % 6):   # cancelled at each await of the transaction in turn
                await asyncio.sleep(0)
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
            await store.meta.set("next", i)
            assert await store.meta.get("next") == i
    finally:
        await store.close()
