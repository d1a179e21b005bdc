"""What group games need from Telegram, driven by a real aiogram Bot and Dispatcher: members and
admins, joining through a deep link, forum topics, the upgrade to a supergroup, the bot removed or
blocked, what people see, and the group's budget of sends and edits."""

import asyncio
import contextlib

import pytest
from aiogram import Dispatcher, F, Router
from aiogram.exceptions import (
    TelegramBadRequest,
    TelegramForbiddenError,
    TelegramMigrateToChat,
    TelegramRetryAfter,
)
from aiogram.filters import Command, CommandObject, CommandStart
from aiogram.types import (
    CallbackQuery,
    ChatMemberAdministrator,
    ChatMemberBanned,
    ChatMemberLeft,
    ChatMemberMember,
    ChatMemberOwner,
    ChatMemberUpdated,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    ReplyParameters,
)
from aiogram.types import Message as TgMessage

from tg_durak.emulator import FakeTelegram, RateLimits, Shown

ANN, BOB, CAT, DAN = 1001, 1002, 1003, 1004
GROUP = -1001234567890  # a supergroup
BASIC = -4242  # a basic group
FORUM = -1009876543210
JOIN = InlineKeyboardMarkup(
    inline_keyboard=[[InlineKeyboardButton(text="Join", callback_data="join")]]
)


@contextlib.asynccontextmanager
async def polling(tg: FakeTelegram, router: Router):
    """Run a throwaway dispatcher; stop it cleanly on exit."""
    bot = tg.create_bot()
    dp = Dispatcher()
    dp.include_router(router)
    task = asyncio.create_task(dp.start_polling(bot, handle_signals=False))
    await tg.wait_for(lambda: tg.polling)
    try:
        yield bot
    finally:
        await dp.stop_polling()
        await task


@pytest.fixture
async def tg():
    async with FakeTelegram() as fake:
        fake.add_user(ANN, "Ann", last_name="Lee", username="ann_lee", language_code="ru")
        fake.add_user(BOB, "Bob")
        fake.add_user(CAT, "Cat", username="cat")
        fake.add_user(DAN, "Dan")
        fake.add_group(GROUP, "Durak club", members=[ANN, BOB, CAT], creator=ANN)
        yield fake


async def test_get_chat_member_tells_the_host_and_admins_apart(tg):
    tg.set_member(GROUP, BOB, "administrator")
    tg.set_member(GROUP, CAT, "kicked")
    bot = tg.create_bot()
    try:
        members = {uid: await bot.get_chat_member(GROUP, uid) for uid in (ANN, BOB, CAT, DAN)}
        assert isinstance(members[ANN], ChatMemberOwner)
        assert isinstance(members[BOB], ChatMemberAdministrator)
        assert isinstance(members[CAT], ChatMemberBanned) and members[CAT].until_date is not None
        assert isinstance(members[DAN], ChatMemberLeft)  # never joined
        assert members[ANN].user.username == "ann_lee"
        assert isinstance(await bot.get_chat_member(GROUP, bot.id), ChatMemberMember)

        tg.set_member(GROUP, CAT, "member")
        tg.set_member(GROUP, ANN, "left")
        tg.set_member(GROUP, BOB, "creator")
        statuses = [(await bot.get_chat_member(GROUP, uid)).status for uid in (ANN, BOB, CAT)]
        assert statuses == ["left", "creator", "member"]
        with pytest.raises(TelegramBadRequest) as caught:
            await bot.get_chat_member(GROUP, 99)
        assert caught.value.message == "Bad Request: user not found"
    finally:
        await bot.session.close()


def lobby_router(seen: list) -> Router:
    router = Router()

    @router.message(Command("new"))
    async def new(message: TgMessage) -> None:
        user = message.from_user
        seen.append(("new", user.first_name, user.last_name, user.username))
        await message.answer("Lobby", reply_markup=JOIN)

    @router.callback_query(F.data == "join")
    async def join(query: CallbackQuery) -> None:
        try:
            await query.answer(url="https://example.org/join")
        except TelegramBadRequest as error:
            seen.append(error.message)
        await query.answer(url="https://t.me/durak_test_bot?start=lobby-7f3a")

    @router.message(CommandStart(deep_link=True))
    async def start_with_payload(message: TgMessage, command: CommandObject) -> None:
        await message.answer(f"Seated at {command.args}")

    return router


async def test_join_answers_with_a_start_link_that_the_player_follows(tg):
    seen = []
    async with polling(tg, lobby_router(seen)) as bot:
        await tg.send_text(ANN, "/new@durak_test_bot", chat_id=GROUP)
        lobby = await tg.wait_for(lambda: tg.last_message(GROUP))
        with pytest.raises(TelegramForbiddenError, match="can't initiate conversation"):
            await bot.send_message(BOB, "hi")  # Bob never opened the bot
        answer = await tg.press(BOB, lobby, "Join")
        assert answer.url == "https://t.me/durak_test_bot?start=lobby-7f3a"

        started = await tg.follow_url(BOB)
        assert (started.chat_id, started.text) == (BOB, "/start lobby-7f3a")
        assert tg.state.chat(BOB).opened
        await tg.wait_for(lambda: tg.last_message(BOB).text == "Seated at lobby-7f3a")
    assert seen == [("new", "Ann", "Lee", "ann_lee"), "Bad Request: URL_INVALID"]
    assert [str(shown) for shown in tg.screen(GROUP)] == [
        "Ann Lee: /new@durak_test_bot", "Durak: Lobby [Join]"]
    assert [str(shown) for shown in tg.screen(BOB)] == [
        "Bob: /start lobby-7f3a", "Durak: Seated at lobby-7f3a"]


async def test_forum_topics_carry_the_thread_both_ways(tg):
    tg.add_group(FORUM, "Card forum", members=[ANN, BOB], is_forum=True)
    topic = tg.add_topic(FORUM, "Durak", by=ANN)
    seen = []
    router = Router()

    @router.message(Command("new"))
    async def new(message: TgMessage) -> None:
        seen.append((message.message_thread_id, message.is_topic_message, message.chat.is_forum))
        await message.answer("Lobby")  # aiogram keeps the topic when is_topic_message is set

    @router.message(F.reply_to_message)
    async def reply(message: TgMessage) -> None:
        seen.append((message.message_thread_id, message.is_topic_message))

    async with polling(tg, router) as bot:
        await tg.send_text(BOB, "/new", chat_id=FORUM, thread=topic)
        lobby = await tg.wait_for(lambda: tg.last_message(FORUM))
        assert lobby.thread_id == topic
        await tg.send_text(BOB, "/new", chat_id=FORUM)  # the General topic
        general = await tg.wait_for(lambda: tg.messages(FORUM)[1])
        assert general.thread_id is None

        # A reply in General has a message_thread_id (the reply chain's root) that is no topic.
        await tg.send_text(ANN, "me too", chat_id=FORUM, reply_to=general.message_id)
        await tg.wait_for(lambda: len(seen) == 3)
        for thread in (seen[2][0], 1, 999):
            with pytest.raises(TelegramBadRequest) as caught:
                await bot.send_message(FORUM, "x", message_thread_id=thread)
            assert caught.value.message == "Bad Request: message thread not found"
        # a reply goes to the replied message's topic
        sent = await bot.send_message(FORUM, "x", reply_parameters=ReplyParameters(
            message_id=lobby.message_id))
        assert (sent.message_thread_id, sent.is_topic_message) == (topic, True)
    assert seen[:2] == [(topic, True, True), (None, None, True)]
    assert seen[2] == (general.message_id, None)
    assert [s.text for s in tg.screen(FORUM, thread=topic)] == ["/new", "Lobby", "x"]


async def test_an_upgraded_group_answers_with_migrate_to_chat_id(tg):
    tg.add_group(BASIC, "Kitchen", members=[ANN, BOB], creator=ANN)
    seen = []
    router = Router()

    @router.message(F.migrate_to_chat_id | F.migrate_from_chat_id)
    async def migrated(message: TgMessage) -> None:
        seen.append((message.chat.id, message.chat.type, message.migrate_to_chat_id,
                     message.migrate_from_chat_id, message.from_user.id))

    async with polling(tg, router) as bot:
        await tg.send_text(BOB, "hi all", chat_id=BASIC)
        await tg.send_text(BOB, "anyone?", chat_id=BASIC)
        lobby = await bot.send_message(BASIC, "Lobby")
        supergroup = tg.migrate_to_supergroup(BASIC)
        assert supergroup.id == -1000000004242
        await tg.wait_for(lambda: len(seen) == 2)

        for call in (bot.send_message(BASIC, "x"),
                     bot.edit_message_text("Lobby!", chat_id=BASIC, message_id=lobby.message_id)):
            with pytest.raises(TelegramMigrateToChat) as caught:
                await call
            assert caught.value.migrate_to_chat_id == supergroup.id
        # the supergroup's history starts anew: the old lobby cannot be edited there
        with pytest.raises(TelegramBadRequest, match="message to edit not found"):
            await bot.edit_message_text("Lobby!", chat_id=supergroup.id, message_id=3)
        moved = await bot.send_message(supergroup.id, "Lobby")
    assert seen == [(BASIC, "group", supergroup.id, None, ANN),
                    (supergroup.id, "supergroup", None, BASIC, ANN)]
    assert moved.message_id == 2  # 1 is the migrate_from_chat_id service message
    assert [(s.chat_id, s.text) for s in tg.screen(supergroup.id)] == [
        (BASIC, "hi all"), (BASIC, "anyone?"), (BASIC, "Lobby"), (supergroup.id, "Lobby")]


async def test_my_chat_member_follows_removals_and_blocks(tg):
    changes = []
    router = Router()

    @router.my_chat_member()
    async def member(update: ChatMemberUpdated) -> None:
        changes.append((update.chat.id, update.from_user.id, update.old_chat_member.status,
                        update.new_chat_member.status))

    @router.message(F.new_chat_members)
    async def added(message: TgMessage) -> None:
        changes.append(("added", [u.id for u in message.new_chat_members]))

    await tg.send_text(ANN, "/start")
    async with polling(tg, router) as bot:
        tg.kick_bot(GROUP, by=BOB)
        await tg.wait_for(lambda: len(changes) == 1)
        with pytest.raises(TelegramForbiddenError) as caught:
            await bot.send_message(GROUP, "x")
        assert caught.value.message == "Forbidden: bot was kicked from the supergroup chat"
        tg.add_bot(GROUP, by=CAT, admin=True)
        tg.block_bot(ANN)
        await tg.wait_for(lambda: len(changes) == 4)
        with pytest.raises(TelegramForbiddenError) as caught:
            await bot.send_message(ANN, "x")
        assert caught.value.message == "Forbidden: bot was blocked by the user"
        await tg.send_text(ANN, "/start")  # writing again unblocks
        await tg.wait_for(lambda: len(changes) == 5)
        assert await bot.send_message(ANN, "back")
    # the dispatcher handles updates concurrently: compare without order
    assert sorted(changes, key=repr) == sorted([
        (GROUP, BOB, "member", "kicked"),
        (GROUP, CAT, "kicked", "administrator"),
        ("added", [tg.state.bot.id]),
        (ANN, ANN, "member", "kicked"),
        (ANN, ANN, "kicked", "member"),
    ], key=repr)


async def test_the_group_budget_counts_sends_and_edits(clock):
    limits = RateLimits(group_per_minute=20)
    async with FakeTelegram(rate_limits=limits, clock=clock) as tg:
        tg.add_user(ANN, "Ann")
        tg.add_group(GROUP, "club", members=[ANN])
        bot = tg.create_bot()
        try:
            table = await bot.send_message(GROUP, "turn 0")
            await bot.send_message(GROUP, "note")
            for turn in range(1, 19):
                clock.now += 1
                await bot.edit_message_text(f"turn {turn}", chat_id=GROUP,
                                            message_id=table.message_id)
            with pytest.raises(TelegramRetryAfter) as caught:
                await bot.edit_message_text("turn 19", chat_id=GROUP, message_id=table.message_id)
            assert caught.value.retry_after == 42
            clock.now += 42
            await bot.edit_message_text("turn 19", chat_id=GROUP, message_id=table.message_id)
        finally:
            await bot.session.close()
        hits = tg.sends_and_edits(GROUP)
        assert len(hits) == 21 and hits[0].method == "sendMessage"
        assert {h.method for h in hits[2:]} == {"editMessageText"}
        assert len(tg.sends_and_edits(GROUP, table.message_id)) == 20
        assert tg.busiest_minute(GROUP) == 20
        assert tg.busiest_minute(GROUP, table.message_id) == 19
        assert sum(tg.per_minute(GROUP).values()) == 21
        assert tg.screen(GROUP)[0] == Shown(GROUP, table.message_id, "Durak", True, "turn 19", ())
