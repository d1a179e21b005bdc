"""A group chat's lifecycle around its table, end to end: the group becomes a supergroup in the
middle of a game, the bot is removed with a lobby open or a game running, a game in a forum
topic (issue 10, "Chat lifecycle")."""

from __future__ import annotations

import asyncio

from tests.bot.conftest import ALICE, BOB, game_message, is_over
from tests.bot.groups import BOT, join, lobby_message, open_lobby, start
from tests.bot.test_group_absent import AWAY_YOU, keep_playing, table_of
from tg_durak.app import BotApp
from tg_durak.emulator import FakeTelegram
from tg_durak.storage import Store

BASIC = -4242                 # a basic group, before its upgrade
FORUM = -1009876543210


async def two_at_table(tg: FakeTelegram, chat_id: int, thread: int | None = None):
    """Alice and Bob (both opened the bot) at a table of the chat, started by Alice."""
    for person in (ALICE, BOB):   # greeted: the bot may write to each (a host is seated)
        await tg.send_text(person, "/start")
        await tg.wait_for(lambda p=person: tg.last_message(p))
    before = len(tg.messages(chat_id))
    await tg.send_text(ALICE, f"/new@{BOT}", chat_id=chat_id, thread=thread)
    lobby = await tg.wait_for(lambda: len(tg.messages(chat_id)) > before
                              and lobby_message(tg, chat_id), timeout=60)
    await join(tg, BOB, lobby, "Bob")
    await start(tg, ALICE, lobby, [ALICE, BOB])
    return lobby


def to_group(tg: FakeTelegram, chat_id: int) -> list:
    """The bot's sends and edits addressed to the chat, refused or not."""
    return [c for c in tg.calls_to("sendMessage", "editMessageText")
            if c.params.get("chat_id") in (chat_id, str(chat_id))]


def table_messages(tg: FakeTelegram, chat_id: int) -> list:
    return [m for m in tg.messages(chat_id) if m.text.startswith("Trump")]


async def test_a_group_upgraded_mid_game_keeps_its_table(
        tg: FakeTelegram, bot: BotApp, store: Store) -> None:
    tg.add_group(BASIC, "Kitchen", members=[ALICE, BOB], creator=ALICE)
    await two_at_table(tg, BASIC)
    table_id = table_of(game_message(tg, ALICE))
    supergroup = tg.migrate_to_supergroup(BASIC).id

    stop = asyncio.Event()
    players = [asyncio.create_task(keep_playing(tg, p, stop, seed=p)) for p in (ALICE, BOB)]
    try:
        fresh = await tg.wait_for(lambda: (found := table_messages(tg, supergroup))
                                  and found[0], timeout=60, what="the table in the supergroup")
        await tg.wait_for(lambda: tg.message(supergroup, fresh.message_id).edit_count > 0
                          or is_over(game_message(tg, ALICE)), timeout=60,
                          what="the table going on in the supergroup")
    finally:
        stop.set()
        await asyncio.gather(*players)
    assert len(table_messages(tg, supergroup)) == 1, "one fresh message, then edits"
    assert (await store.tables.get(table_id)).chat_id == supergroup
    assert [(m.chat_id, m.message_id) for m in await store.messages.of_table(table_id)
            if m.user_id is None] == [(supergroup, fresh.message_id)]
    await tg.send_text(ALICE, f"/kick@{BOT}", chat_id=supergroup)
    await tg.wait_for(lambda: tg.last_message(supergroup).text
                      in ("Everyone is here right now.", "No game is running in this chat."))


async def test_a_bot_removed_with_a_lobby_open_closes_it(
        tg: FakeTelegram, bot: BotApp, store: Store) -> None:
    group = -1001234567890
    tg.add_group(group, "Durak club", members=[ALICE, BOB], creator=ALICE)
    for person in (ALICE, BOB):
        await tg.send_text(person, "/start")
    lobby = await open_lobby(tg, ALICE)
    await join(tg, BOB, lobby, "Bob")
    row = await store.lobbies.open_in_chat(group)
    tg.kick_bot(group)
    for person in (ALICE, BOB):
        await tg.wait_for(lambda p=person: "removed from the group" in tg.last_message(p).text,
                          what="the seated told privately")
    assert (await store.tables.get(row.id)).status == "aborted"


async def test_a_bot_removed_mid_game_plays_on_in_private(
        tg: FakeTelegram, bot: BotApp, store: Store) -> None:
    group = -1001234567890
    tg.add_group(group, "Durak club", members=[ALICE, BOB], creator=ALICE)
    lobby = await two_at_table(tg, group)
    table_id = table_of(game_message(tg, ALICE))
    tg.kick_bot(group)
    await tg.wait_for(lambda: tg.state.chat(group).bot_kicked)
    edits = tg.message(group, lobby.message_id).edit_count
    tried = len(to_group(tg, group))
    assert tried > 0

    final = {}
    stop = asyncio.Event()

    async def play(person: int) -> None:
        await keep_playing(tg, person, stop, seed=person)
        # Out of cards before the end, his message has no card to tap (it returns early): its
        # result comes once the others are done.
        final[person] = await tg.wait_for(
            lambda: (m := game_message(tg, person)) is not None and is_over(m) and m,
            timeout=180, what="his game message at the end")

    await asyncio.wait_for(asyncio.gather(play(ALICE), play(BOB)), 180)
    assert all(is_over(m) for m in final.values())
    assert tg.message(group, lobby.message_id).edit_count == edits
    assert len(to_group(tg, group)) <= tried + 1, "the bot stops writing to the group"
    assert (await store.tables.get(table_id)).status == "finished"
    assert not any(AWAY_YOU in m.text for m in final.values())


async def test_a_forum_topic_game_stays_in_its_topic(tg: FakeTelegram, bot: BotApp) -> None:
    tg.add_group(FORUM, "Card forum", members=[ALICE, BOB], creator=ALICE, is_forum=True)
    topic = tg.add_topic(FORUM, "Durak", by=ALICE)
    lobby = await two_at_table(tg, FORUM, thread=topic)
    assert lobby.thread_id == topic
    await tg.send_text(ALICE, f"/kick@{BOT}", chat_id=FORUM, thread=topic)
    await tg.wait_for(lambda: tg.last_message(FORUM).text == "Everyone is here right now.")
    assert {m.thread_id for m in tg.messages(FORUM)} == {topic}, "nothing in General"
