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
                 "deleteWebhook", "getWebhookInfo", "getChatMember"):
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


def test_the_log_holds_accepted_sends_and_edits_only(world, clock):
    limiter = RateLimiter(RateLimits(group_per_minute=3), clock)
    group = world.add_group(-5, "g", members=[ANN])
    limiter.check("sendMessage", group, 1)
    clock.now += 30
    limiter.check("editMessageText", group, 1)
    limiter.check("getChat", group)  # not a counted method
    limiter.check("editMessageReplyMarkup", group, 1)
    with pytest.raises(ApiError):
        limiter.check("sendMessage", group, 2)  # refused: not logged
    clock.now += 30  # the first send leaves the window
    limiter.check("sendMessage", group, 2)
    assert [(h.time - 1_700_000_000, h.method, h.message_id) for h in limiter.log[-5]] == [
        (0, "sendMessage", 1), (30, "editMessageText", 1), (30, "editMessageReplyMarkup", 1),
        (60, "sendMessage", 2)]
    assert limiter.busiest(-5) == 3
    assert limiter.busiest(-5, 1.0) == 2
    assert limiter.busiest(-5, message_id=2) == 1
    assert limiter.busiest(-6) == 0
    assert limiter.per_minute(-5) == {1_699_999_980: 3, 1_700_000_040: 1}
