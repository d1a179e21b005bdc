"""The messages that show a table: one per viewer, the latest kept."""

from tests.store.helpers import ANN, BOB
from tg_durak.play.rows import MessageRow
from tg_durak.storage import Store


async def test_messages_upsert(store: Store) -> None:
    table_id = (await store.tables.create(-7, "group", "lobby", {}, [ANN, BOB], None)).id
    await store.messages.set(table_id, 1, 1, 10)
    await store.messages.set(table_id, None, -7, 20)
    await store.messages.set(table_id, 1, 1, 11)  # a fresh message replaced the old one
    await store.messages.set(table_id, None, -8, 21)  # the group became a supergroup

    assert await store.messages.of_table(table_id) == [
        MessageRow(table_id, None, -8, 21),
        MessageRow(table_id, 1, 1, 11),
    ]
    assert await store.messages.of_table(table_id + 1) == []
