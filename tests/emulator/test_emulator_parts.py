"""The emulator's parts on their own, without HTTP: the method table, the world and the limits."""

import pytest

from tg_durak.emulator import ApiError, RateLimits
from tg_durak.emulator.api import BotApi, canonical_method
from tg_durak.emulator.limits import RateLimiter
from tg_durak.emulator.world import World

ANN, BOB, CAT = 7, 8, 9


@pytest.fixture
def world(clock):
    world = World("42:T", bot_username="b_bot", bot_name="B", clock=clock, notify=lambda _: None)
    for user_id, name in ((ANN, "Ann"), (BOB, "Bob"), (CAT, "Cat")):
        world.add_user(user_id, name)
        world.user_message(user_id, "/start")
    return world


def test_method_names_resolve_case_insensitively_to_their_canonical_spelling():
    for name in ("getMe", "getUpdates", "sendMessage", "editMessageText",
                 "editMessageReplyMarkup", "deleteMessage", "answerCallbackQuery",
                 "setMyCommands", "getMyCommands", "deleteMyCommands", "getChat",
                 "sendChatAction", "pinChatMessage", "unpinChatMessage", "setWebhook",
                 "deleteWebhook", "getWebhookInfo"):
        assert canonical_method(name) == canonical_method(name.upper()) == name
    assert canonical_method("sendDice") is None


def test_the_api_works_on_a_world_without_a_server(world, clock):
    api = BotApi(world, RateLimiter(RateLimits(), clock))
    sent = api.call("SENDMESSAGE", {"chat_id": ANN, "text": "<b>hi</b>", "parse_mode": "HTML"})
    assert world.message(ANN, sent["message_id"]).html == "<b>hi</b>"
    assert [u["message"]["text"] for u in api.call("getUpdates", {})] == ["/start"] * 3


def test_a_refused_request_uses_none_of_the_other_budgets(world, clock):
    limiter = RateLimiter(RateLimits(private_per_second=1, global_per_second=2), clock)
    ann, bob, cat = (world.chat(user_id) for user_id in (ANN, BOB, CAT))
    limiter.check("sendMessage", ann)
    with pytest.raises(ApiError) as refused:
        limiter.check("sendMessage", ann)  # over Ann's budget, so not counted globally
    assert (refused.value.error_code, refused.value.retry_after) == (429, 1)
    limiter.check("sendMessage", bob)
    with pytest.raises(ApiError):
        limiter.check("sendMessage", cat)  # the global budget of 2 is used up
    limiter.check("getChat", cat)  # a method without limits
    clock.now += 1
    limiter.check("sendMessage", cat)
