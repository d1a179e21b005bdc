"""The few named values the bot keeps for itself."""

from tg_durak.storage import Store


async def test_meta(store: Store) -> None:
    assert await store.meta.get("bot") is None
    await store.meta.set("bot", {"username": "durak_bot"})
    await store.meta.set("bot", {"username": "durak2_bot"})
    await store.meta.set("count", 3)
    assert await store.meta.get("bot") == {"username": "durak2_bot"}
    assert await store.meta.get("count") == 3
