"""The Bot API over plain HTTP: request encodings, errors, and getUpdates like Telegram's."""

import asyncio
import json

import aiohttp
import pytest

from tg_durak.emulator import DEFAULT_TOKEN, FakeTelegram


@pytest.fixture
async def tg():
    async with FakeTelegram() as fake:
        fake.add_user(1, "Ann")
        yield fake


@pytest.fixture
async def http(tg):
    async with aiohttp.ClientSession(base_url=tg.url) as session:
        yield session


async def call(http, method, token=DEFAULT_TOKEN, **kwargs):
    async with http.post(f"/bot{token}/{method}", **kwargs) as response:
        body = await response.json()
        assert response.status == (200 if body["ok"] else body["error_code"])
        return body


async def test_json_form_multipart_and_query_bodies_are_all_understood(tg, http):
    await tg.send_text(1, "/start")
    markup = {"inline_keyboard": [[{"text": "A", "callback_data": "a"}]]}
    form = aiohttp.FormData(
        {"chat_id": "1", "text": "multipart", "reply_markup": json.dumps(markup)}
    )
    form.add_field("unused", b"file", filename="unused.bin")  # a file forces multipart
    bodies = [
        {"json": {"chat_id": 1, "text": "json", "reply_markup": markup}},
        {"data": {"chat_id": "1", "text": "form", "reply_markup": json.dumps(markup)}},
        {"data": form},
        {"params": {"chat_id": "1", "text": "query"}},
    ]
    for body in bodies:
        assert (await call(http, "sendMessage", **body))["ok"]
    assert [m.text for m in tg.messages(1)] == ["json", "form", "multipart", "query"]
    assert tg.messages(1)[2].button("A").callback_data == "a"
    assert tg.calls[0].params["chat_id"] == 1  # form values are decoded for assertions


async def test_wrong_token_unknown_method_and_other_paths(http):
    assert await call(http, "getMe", token="1:WRONG") == {
        "ok": False, "error_code": 401, "description": "Unauthorized"}
    assert await call(http, "sendDice") == {
        "ok": False, "error_code": 404, "description": "Not Found"}
    async with http.get("/favicon.ico") as response:
        assert response.status == 404
    me = await call(http, "GETME")  # method names are case-insensitive
    assert me["result"]["id"] == 123456 and me["result"]["is_bot"]


async def test_unconfirmed_updates_are_delivered_again_until_an_offset_confirms_them(tg, http):
    for text in ("one", "two", "three"):
        await tg.send_text(1, text)

    async def texts(**params):
        body = await call(http, "getUpdates", json=params)
        return [(u["update_id"], u["message"]["text"]) for u in body["result"]]

    assert await texts() == [(1, "one"), (2, "two"), (3, "three")]
    assert await texts(limit=2) == [(1, "one"), (2, "two")]  # still there: nothing confirmed
    assert await texts(offset=2) == [(2, "two"), (3, "three")]  # update 1 is now confirmed
    assert await texts() == [(2, "two"), (3, "three")]
    assert await texts(offset=-1) == [(3, "three")]  # negative: keep only the last one
    assert await texts(offset=4) == []
    assert tg.pending_updates == []


async def test_long_poll_returns_as_soon_as_an_update_arrives(tg, http):
    poll = asyncio.create_task(call(http, "getUpdates", json={"timeout": 30}))
    await tg.wait_for(lambda: tg.polling)
    await tg.send_text(1, "hello")
    body = await poll
    assert [u["message"]["text"] for u in body["result"]] == ["hello"]


async def test_a_second_poll_terminates_the_first_with_409(tg, http):
    first = asyncio.create_task(call(http, "getUpdates", json={"timeout": 30}))
    await tg.wait_for(lambda: tg.polling)
    assert (await call(http, "getUpdates", json={"timeout": 0}))["result"] == []
    assert await first == {
        "ok": False,
        "error_code": 409,
        "description": "Conflict: terminated by other getUpdates request; make sure that only "
                       "one bot instance is running",
    }


async def test_allowed_updates_filters_later_updates(tg, http):
    await call(http, "getUpdates", json={"allowed_updates": ["callback_query"]})
    await tg.send_text(1, "not for the bot")
    assert tg.pending_updates == []
    await call(http, "getUpdates", json={"allowed_updates": []})  # back to the default set
    await tg.send_text(1, "for the bot")
    assert len(tg.pending_updates) == 1


async def test_webhook_blocks_get_updates_until_deleted_and_can_drop_updates(tg, http):
    await tg.send_text(1, "queued")
    await call(http, "setWebhook", json={"url": "https://example.org/hook"})
    body = await call(http, "getUpdates")
    assert body["error_code"] == 409 and "webhook is active" in body["description"]
    await call(http, "deleteWebhook", json={"drop_pending_updates": True})
    assert (await call(http, "getUpdates"))["result"] == []


async def test_stop_ends_a_waiting_long_poll():
    tg = FakeTelegram()
    await tg.start()
    async with aiohttp.ClientSession(base_url=tg.url) as session:
        poll = asyncio.create_task(call(session, "getUpdates", json={"timeout": 30}))
        await tg.wait_for(lambda: tg.polling)
        await tg.stop()
        assert (await poll)["result"] == []
