"""Group and chat lifecycle rules, checked through FakeTelegram.handle() without a socket."""

import pytest

from tg_durak.emulator import FakeTelegram

ANN, BOB, CAT = 7, 8, 9
BASIC = -42
GROUP = -1000000000077  # a supergroup
FORUM = -1000000000099


@pytest.fixture
def tg(clock):
    fake = FakeTelegram(clock=clock)
    fake.add_user(ANN, "Ann", username="ann")
    fake.add_user(BOB, "Bob", last_name="Stone")
    fake.add_user(CAT, "Cat")
    fake.add_group(BASIC, "basic", members=[ANN, BOB], creator=ANN)
    fake.add_group(GROUP, "super", members=[ANN, BOB], admins=[BOB])
    fake.add_group(FORUM, "forum", members=[ANN, BOB], is_forum=True)
    return fake


async def call(tg, method, **params):
    """The whole response body."""
    status, body = await tg.handle(tg.token, method, params)
    assert status == (200 if body["ok"] else body["error_code"])
    return body


async def api(tg, method, **params):
    body = await call(tg, method, **params)
    return body["result"] if body["ok"] else body["description"]


def updates_of(tg, kind):
    return [u[kind] for u in tg.pending_updates if kind in u]


async def test_callback_urls_may_only_open_this_bot(tg):
    await tg.send_text(ANN, "/start")
    sent = await api(tg, "sendMessage", chat_id=ANN, text="x")
    longest = "https://t.me/durak_test_bot?start=" + "a" * 64
    accepted = ["t.me/durak_test_bot?start=abc", "https://t.me/Durak_Test_Bot?start=a-b_C9",
                "http://telegram.me/durak_test_bot", longest]
    refused = ["https://example.org", "https://t.me/other_bot?start=abc",
               "https://t.me/durak_test_bot?start=a+b", "https://t.me/durak_test_bot?start=",
               "https://t.me/durak_test_bot?start=" + "a" * 65, "tg://resolve?domain=x"]
    for url in refused:
        query = tg.state.press(ANN, ANN, sent["message_id"], "x")
        assert await api(tg, "answerCallbackQuery", callback_query_id=query.id, url=url) == (
            "Bad Request: URL_INVALID"), url
        assert query.answer is None  # a refused answer leaves the query open
    for url in accepted:
        query = tg.state.press(ANN, ANN, sent["message_id"], "x")
        assert await api(tg, "answerCallbackQuery", callback_query_id=query.id, url=url) is True
        assert query.answer.url == url


async def test_following_a_link_sends_start_with_its_payload(tg):
    with pytest.raises(LookupError, match="answered no tap"):
        await tg.follow_url(BOB)
    sent = await api(tg, "sendMessage", chat_id=BASIC, text="Lobby")
    query = tg.state.press(BOB, BASIC, sent["message_id"], "join")
    await api(tg, "answerCallbackQuery", callback_query_id=query.id, text="Join in private")
    with pytest.raises(LookupError, match="without a url"):
        await tg.follow_url(BOB)
    assert not tg.state.chat(BOB).opened
    assert (await tg.follow_url(BOB, "https://t.me/durak_test_bot")).text == "/start"
    assert (await tg.follow_url(BOB, "t.me/durak_test_bot?start=L1")).text == "/start L1"
    with pytest.raises(ValueError, match="not a link to @durak_test_bot"):
        await tg.follow_url(BOB, "https://t.me/other_bot?start=L1")
    start = updates_of(tg, "message")[-1]
    assert (start["chat"]["id"], start["text"]) == (BOB, "/start L1")
    assert start["entities"] == [{"type": "bot_command", "offset": 0, "length": 6}]
    assert start["from"]["last_name"] == "Stone"
    assert await api(tg, "sendMessage", chat_id=BOB, text="Seated")


async def test_members_statuses_and_chat_member_updates(tg, clock):
    assert [tg.state.chat(BASIC).status_of(u) for u in (ANN, BOB, CAT)] == [
        "creator", "member", "left"]
    member = await api(tg, "getChatMember", chat_id=BASIC, user_id=ANN)
    assert member == {"status": "creator", "user": tg.state.user(ANN).to_api(),
                      "is_anonymous": False}
    admin = await api(tg, "getChatMember", chat_id=GROUP, user_id=BOB)
    assert admin["status"] == "administrator" and admin["can_delete_messages"] is True
    assert await api(tg, "getChatMember", chat_id=GROUP, user_id="x") == (
        "Bad Request: invalid user_id specified")
    with pytest.raises(ValueError, match="unknown status"):
        tg.set_member(GROUP, CAT, "owner")

    tg.set_member(GROUP, CAT, "member")  # the bot is no administrator: it is not told
    assert updates_of(tg, "chat_member") == []
    tg.state.chat(GROUP).bot_is_admin = True
    await api(tg, "getUpdates", allowed_updates='["message", "chat_member"]')
    tg.set_member(GROUP, CAT, "kicked", by=BOB)
    tg.set_member(GROUP, CAT, "kicked", by=BOB)  # no change, no update
    [update] = updates_of(tg, "chat_member")
    assert update["from"]["id"] == BOB and update["date"] == int(clock.now)
    assert (update["old_chat_member"]["status"], update["new_chat_member"]) == (
        "member", {"status": "kicked", "user": tg.state.user(CAT).to_api(), "until_date": 0})
    with pytest.raises(ValueError, match="was removed"):
        await tg.send_text(CAT, "let me in", chat_id=GROUP)

    tg.set_member(BASIC, BOB, "creator")  # ownership moves; Ann stays an administrator
    assert [tg.state.chat(BASIC).status_of(u) for u in (ANN, BOB)] == [
        "administrator", "creator"]


async def test_the_bot_removed_added_and_blocked(tg):
    await tg.send_text(ANN, "/start")
    lobby = await api(tg, "sendMessage", chat_id=GROUP, text="Lobby")
    tg.kick_bot(GROUP)  # by its administrator Bob: the group has no creator
    tg.kick_bot(GROUP)  # already out: nothing new
    with pytest.raises(ValueError, match="no one would answer"):
        tg.state.press(ANN, GROUP, lobby["message_id"], "x")
    assert await api(tg, "getChatMember", chat_id=GROUP, user_id=ANN) == (
        "Forbidden: bot was kicked from the supergroup chat")
    tg.add_bot(GROUP, by=ANN)
    with pytest.raises(ValueError, match="already in"):
        tg.add_bot(GROUP)
    tg.block_bot(ANN)
    tg.block_bot(ANN)
    tg.block_bot(ANN, blocked=False)
    kinds = [next(k for k in u if k != "update_id") for u in tg.pending_updates]
    assert kinds == ["message", "my_chat_member", "my_chat_member", "message",
                     "my_chat_member", "my_chat_member"]
    removed, added, joined, blocked, unblocked = tg.pending_updates[1:]
    assert removed["my_chat_member"]["from"]["id"] == BOB
    assert removed["my_chat_member"]["new_chat_member"] == {
        "status": "kicked", "user": tg.state.bot.to_api(), "until_date": 0}
    assert added["my_chat_member"]["new_chat_member"]["status"] == "member"
    assert joined["message"]["new_chat_members"] == [tg.state.bot.to_api()]
    assert "text" not in joined["message"]
    assert blocked["my_chat_member"]["chat"]["type"] == "private"
    assert unblocked["my_chat_member"]["new_chat_member"]["status"] == "member"
    assert (await api(tg, "getChatMember", chat_id=GROUP, user_id=tg.state.bot.id))[
        "status"] == "member"


async def test_an_upgrade_moves_the_group_to_a_new_id(tg):
    await tg.send_text(ANN, "/new", chat_id=BASIC)
    await api(tg, "sendMessage", chat_id=BASIC, text="Lobby")
    with pytest.raises(ValueError, match="not a basic group"):
        tg.migrate_to_supergroup(GROUP)
    with pytest.raises(ValueError, match="must be below"):
        tg.migrate_to_supergroup(BASIC, new_chat_id=-5)
    new = tg.migrate_to_supergroup(BASIC, by=BOB, new_chat_id=-1000000000555)
    assert (new.type, new.title, new.members, new.creator_id) == (
        "supergroup", "basic", {ANN, BOB}, ANN)
    body = await call(tg, "getChat", chat_id=BASIC)
    assert body == {"ok": False, "error_code": 400,
                    "description": "Bad Request: group chat was upgraded to a supergroup chat",
                    "parameters": {"migrate_to_chat_id": new.id}}
    to, from_ = updates_of(tg, "message")[-2:]
    assert (to["chat"]["id"], to["message_id"], to["migrate_to_chat_id"]) == (BASIC, 3, new.id)
    assert (from_["chat"]["id"], from_["message_id"], from_["migrate_from_chat_id"]) == (
        new.id, 1, BASIC)
    assert to["from"]["id"] == from_["from"]["id"] == BOB
    with pytest.raises(ValueError, match="upgraded"):
        await tg.send_text(ANN, "hi", chat_id=BASIC)
    assert [m.text for m in tg.messages(BASIC)] == ["Lobby"]  # the old history stays there
    assert (await api(tg, "getChat", chat_id=new.id))["type"] == "supergroup"


async def test_forum_topics(tg):
    with pytest.raises(ValueError, match="only a supergroup"):
        tg.add_group(-77, "x", is_forum=True)
    first = tg.add_topic(FORUM, "Durak", by=ANN)
    second = tg.add_topic(FORUM, "Chess", by=BOB)
    assert (first, second) == (2, 3)  # message 1 opened the General topic
    assert tg.state.chat(FORUM).to_api()["is_forum"] is True
    created = updates_of(tg, "message")[0]
    assert created["forum_topic_created"] == {"name": "Durak", "icon_color": 7322096}
    assert (created["message_thread_id"], created["is_topic_message"]) == (first, True)
    assert "reply_to_message" not in created

    said = await tg.send_text(BOB, "/new", chat_id=FORUM, thread=first)
    update = updates_of(tg, "message")[-1]
    assert update["reply_to_message"]["forum_topic_created"]["name"] == "Durak"
    with pytest.raises(LookupError, match="no topic 99"):
        await tg.send_text(BOB, "x", chat_id=FORUM, thread=99)
    with pytest.raises(ValueError, match="not a forum"):
        await tg.send_text(BOB, "x", chat_id=GROUP, thread=first)
    with pytest.raises(ValueError, match="is not in topic"):
        await tg.send_text(BOB, "x", chat_id=FORUM, reply_to=said.message_id, thread=second)
    reply = await tg.send_text(ANN, "me", chat_id=FORUM, reply_to=said.message_id)
    assert reply.thread_id == first

    sent = await api(tg, "sendMessage", chat_id=FORUM, text="Lobby", message_thread_id=second)
    assert (sent["message_thread_id"], sent["is_topic_message"]) == (second, True)
    assert sent["reply_to_message"]["message_id"] == second
    assert await api(tg, "sendMessage", chat_id=FORUM, text="x", message_thread_id=second,
                     reply_to_message_id=said.message_id) == (
        "Bad Request: message to be replied not found")
    edited = await api(tg, "editMessageText", chat_id=FORUM, message_id=sent["message_id"],
                       text="Lobby!")
    assert edited["message_thread_id"] == second
    # outside forums the parameter changes nothing
    assert "message_thread_id" not in await api(tg, "sendMessage", chat_id=GROUP, text="x",
                                                message_thread_id=5)
    assert [s.text for s in tg.screen(FORUM, thread=first)] == ["/new", "me"]
    assert [s.thread_id for s in tg.screen(FORUM)] == [first, first, second]


async def test_replies_in_a_supergroup_name_their_chain_root(tg):
    root = await tg.send_text(ANN, "/new", chat_id=GROUP)
    answer = await api(tg, "sendMessage", chat_id=GROUP, text="Lobby",
                       reply_to_message_id=root.message_id)
    assert answer["message_thread_id"] == root.message_id
    assert "is_topic_message" not in answer
    await tg.send_text(BOB, "in", chat_id=GROUP, reply_to=answer["message_id"])
    assert updates_of(tg, "message")[-1]["message_thread_id"] == root.message_id
    said = await tg.send_text(ANN, "/new", chat_id=BASIC)
    basic = await api(tg, "sendMessage", chat_id=BASIC, text="Lobby",
                      reply_to_message_id=said.message_id)
    assert "message_thread_id" not in basic  # basic groups have no threads


async def test_the_screen_shows_current_texts_by_name(tg):
    await tg.send_text(BOB, "/new", chat_id=BASIC)
    keyboard = {"inline_keyboard": [[{"text": "Join", "callback_data": "j"},
                                     {"text": "Leave", "callback_data": "l"}],
                                    [{"text": "Start", "callback_data": "s"}]]}
    sent = await api(tg, "sendMessage", chat_id=BASIC, text="Lobby", reply_markup=keyboard)
    gone = await api(tg, "sendMessage", chat_id=BASIC, text="gone")
    await api(tg, "deleteMessage", chat_id=BASIC, message_id=gone["message_id"])
    await api(tg, "editMessageText", chat_id=BASIC, message_id=sent["message_id"],
              text="Lobby: Bob", reply_markup=keyboard)
    assert [str(s) for s in tg.screen(BASIC)] == [
        "Bob Stone: /new", "Durak: Lobby: Bob [Join | Leave / Start]"]
    assert tg.screen(BASIC)[1].buttons == (("Join", "Leave"), ("Start",))
    assert tg.screen(ANN) == []
