"""Smaller Bot API rules, checked through FakeTelegram.handle() without a socket."""

import pytest

from tg_durak.emulator import FakeTelegram

ANN, BOB = 7, 8
GROUP = -42


@pytest.fixture
def tg(clock):
    fake = FakeTelegram(clock=clock)
    fake.add_user(ANN, "Ann")
    fake.add_user(BOB, "Bob", language_code="pl")
    fake.add_group(GROUP, "club", members=[ANN, BOB])
    return fake


async def api(tg, method, **params):
    status, body = await tg.handle(tg.token, method, params)
    assert status == (200 if body["ok"] else body["error_code"])
    return body["result"] if body["ok"] else body["description"]


async def test_get_me_describes_the_bot(tg):
    me = await api(tg, "getMe")
    assert me["username"] == "durak_test_bot" and me["can_read_all_group_messages"] is False


async def test_a_basic_group_and_a_kicked_bot(tg):
    assert tg.state.chat(GROUP).type == "group"
    assert (await api(tg, "sendMessage", chat_id=GROUP, text="hi"))["chat"]["type"] == "group"
    tg.kick_bot(GROUP)
    assert await api(tg, "sendMessage", chat_id=GROUP, text="hi") == (
        "Forbidden: bot was kicked from the group chat")
    await tg.send_text(ANN, "/new", chat_id=GROUP)
    # the bot hears of its removal (a basic group: "left") and of nothing said there since
    assert [list(u) for u in tg.pending_updates] == [["update_id", "my_chat_member"]]
    change = tg.pending_updates[0]["my_chat_member"]
    assert (change["old_chat_member"]["status"], change["new_chat_member"]["status"]) == (
        "member", "left")


async def test_what_the_bot_may_not_do_to_users_messages(tg):
    said = await tg.send_text(ANN, "hello", chat_id=GROUP)
    assert await api(tg, "editMessageText", chat_id=GROUP, message_id=said.message_id,
                     text="bye") == "Bad Request: message can't be edited"
    assert await api(tg, "deleteMessage", chat_id=GROUP, message_id=said.message_id) == (
        "Bad Request: message can't be deleted")
    mine = await tg.send_text(ANN, "hello")
    assert await api(tg, "deleteMessage", chat_id=ANN, message_id=mine.message_id) is True


async def test_replies_need_the_replied_message(tg):
    await tg.send_text(ANN, "/start")
    assert await api(tg, "sendMessage", chat_id=ANN, text="x", reply_to_message_id=99) == (
        "Bad Request: message to be replied not found")
    sent = await api(tg, "sendMessage", chat_id=ANN, text="x",
                     reply_parameters='{"message_id": 1}')
    assert sent["reply_to_message"]["text"] == "/start"


async def test_parse_modes_other_than_html(tg):
    await tg.send_text(ANN, "/start")
    assert await api(tg, "sendMessage", chat_id=ANN, text="*x*", parse_mode="Fancy") == (
        "Bad Request: unsupported parse_mode")
    assert "HTML only" in await api(tg, "sendMessage", chat_id=ANN, text="*x*",
                                    parse_mode="MarkdownV2")
    entities = '[{"type": "bold", "offset": 0, "length": 1}]'
    sent = await api(tg, "sendMessage", chat_id=ANN, text="xy", entities=entities)
    assert tg.message(ANN, sent["message_id"]).html == "<b>x</b>y"


async def test_callback_queries_expire(tg, clock):
    await tg.send_text(ANN, "/start")
    await api(tg, "sendMessage", chat_id=ANN, text="x",
              reply_markup='{"inline_keyboard": [[{"text": "A", "callback_data": "a"}]]}')
    query = tg.state.press(ANN, ANN, 2, "a")
    assert query.data == "a"
    clock.now += 16
    assert await api(tg, "answerCallbackQuery", callback_query_id=query.id) == (
        "Bad Request: query is too old and response timeout expired or query ID is invalid")


async def test_keyboards_must_be_inline_buttons_with_an_action(tg):
    await tg.send_text(ANN, "/start")
    assert await api(tg, "sendMessage", chat_id=ANN, text="x", reply_markup="{oops") == (
        "Bad Request: can't parse reply keyboard markup JSON object")
    assert await api(tg, "sendMessage", chat_id=ANN, text="x",
                     reply_markup={"inline_keyboard": [[{"text": "plain"}]]}) == (
        "Bad Request: can't parse inline keyboard button: Text buttons are unallowed in the "
        "inline keyboard")
    url = {"inline_keyboard": [[{"text": "Rules", "url": "https://example.org"}]]}
    sent = await api(tg, "sendMessage", chat_id=ANN, text="x", reply_markup=url)
    message = tg.message(ANN, sent["message_id"])
    assert message.button("Rules").url == "https://example.org"
    with pytest.raises(ValueError, match="not a callback button"):
        await tg.press(ANN, message, "Rules")


async def test_commands_fall_back_from_language_to_default(tg):
    await api(tg, "setMyCommands", commands='[{"command": "play", "description": "Play"}]')
    await api(tg, "setMyCommands", commands='[{"command": "play", "description": "Graj"}]',
              language_code="pl")
    assert tg.visible_commands(BOB) == [("play", "Graj")]
    assert tg.visible_commands(ANN) == [("play", "Play")]
    assert await api(tg, "getMyCommands", language_code="uk") == []
    assert await api(tg, "setMyCommands", commands='[{"command": "x", "description": ""}]') == (
        "Bad Request: BOT_COMMAND_DESCRIPTION_INVALID")
