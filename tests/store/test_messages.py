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


async def test_an_inline_message_shows_one_table_at_a_time(store: Store) -> None:
    """An inline message is kept by its inline_message_id; a rematch's lobby takes it over."""
    chat, inline_id = -(2**52) - 5, "AgAAAnQAAAB1"
    first = (await store.tables.create(chat, "group", "running", {}, [ANN, BOB], None)).id
    await store.messages.set(first, None, chat, inline_id)
    await store.messages.set(first, 1, 1, 30)
    assert await store.messages.of_inline(inline_id) == first
    assert await store.messages.of_table(first) == [
        MessageRow(first, None, chat, inline_id), MessageRow(first, 1, 1, 30)]

    rematch = (await store.tables.create(chat, "group", "lobby", {}, [ANN, BOB], None)).id
    await store.messages.set(rematch, None, chat, inline_id)
    assert await store.messages.of_inline(inline_id) == rematch
    assert await store.messages.of_table(first) == [MessageRow(first, 1, 1, 30)]
    assert await store.messages.of_table(rematch) == [MessageRow(rematch, None, chat, inline_id)]
    assert await store.messages.of_inline("AgAAAnothing") is None
