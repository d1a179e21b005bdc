"""The Telegram updates the store remembers as handled: each claimed once, the latest kept."""

from __future__ import annotations

import pytest

from tests.store.helpers import raw
from tg_durak.storage import Store
from tg_durak.storage import updates as updates_module


async def test_an_update_is_claimed_once_even_after_a_restart(db_path: str) -> None:
    first = await Store.open(db_path)
    try:
        assert await first.updates.claim(41) is True
        assert await first.updates.claim(41) is False
        assert await first.updates.claim(42) is True
    finally:
        await first.close()
    again = await Store.open(db_path)
    try:
        assert await again.updates.claim(41) is False
        assert await again.updates.claim(43) is True
    finally:
        await again.close()


async def test_only_the_latest_updates_are_remembered(store: Store, db_path: str,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(updates_module, "_KEEP_UPDATES", 5)
    monkeypatch.setattr(updates_module, "_FORGET_EVERY", 10)
    for update_id in range(1, 21):
        assert await store.updates.claim(update_id)
    # At 10 the ids up to 5 were forgotten, at 20 those up to 15.
    rows = raw(db_path, "SELECT update_id FROM handled_updates ORDER BY 1")
    assert [u for (u,) in rows] == list(range(16, 21))
