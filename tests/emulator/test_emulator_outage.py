"""The network between the bot and Telegram goes down: refused connections, or requests left
unanswered; people's messages queue up meanwhile and nothing sent during it arrives. And updates
a crashed bot had confirmed too late are offered again."""

import asyncio

import aiohttp
import pytest

from tg_durak.emulator import DEFAULT_TOKEN, FakeTelegram


@pytest.fixture
async def tg():
    async with FakeTelegram() as fake:
        fake.add_user(1, "Ann")
        yield fake


async def call(tg: FakeTelegram, method: str, wait: float = 5.0, **params) -> dict:
    """One request, given up after `wait` seconds."""
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=wait)) as http, \
            http.post(f"{tg.url}/bot{DEFAULT_TOKEN}/{method}", json=params) as response:
        return await response.json()


async def test_a_refusing_network_refuses_connections_until_it_is_back(tg: FakeTelegram) -> None:
    url = tg.url
    await tg.send_text(1, "/start")
    await tg.network_down()
    with pytest.raises(aiohttp.ClientConnectorError):
        await call(tg, "sendMessage", chat_id=1, text="lost")
    await tg.send_text(1, "during")     # people still write: the updates wait
    await tg.network_up()
    assert tg.url == url
    assert (await call(tg, "sendMessage", chat_id=1, text="after"))["ok"]
    texts = [u["message"]["text"] for u in (await call(tg, "getUpdates"))["result"]]
    assert texts == ["/start", "during"]
    assert [m.text for m in tg.messages(1)] == ["after"]
    assert [c.method for c in tg.calls] == ["sendMessage", "getUpdates"]


async def test_a_hanging_network_answers_nothing_until_it_is_back(tg: FakeTelegram) -> None:
    await tg.send_text(1, "/start")
    await tg.network_down(hang=True)
    with pytest.raises(asyncio.TimeoutError):
        await call(tg, "sendMessage", wait=0.3, chat_id=1, text="timed out")
    waiting = asyncio.create_task(call(tg, "sendMessage", chat_id=1, text="slow"))
    await asyncio.sleep(0.2)
    assert not waiting.done()
    await tg.network_up()
    assert (await waiting)["ok"], "a request still waiting is answered once the network is back"
    assert [m.text for m in tg.messages(1)] == ["slow"], "the request given up never arrived"


async def test_a_long_poll_under_way_delivers_nothing_during_an_outage(tg: FakeTelegram
                                                                      ) -> None:
    poll = asyncio.create_task(call(tg, "getUpdates", wait=0.5, timeout=10))
    await tg.wait_for(lambda: tg.polling)
    await tg.network_down(hang=True)
    await tg.send_text(1, "/start")
    with pytest.raises(asyncio.TimeoutError):
        await poll
    await tg.network_up()
    assert [u["message"]["text"] for u in (await call(tg, "getUpdates"))["result"]] == [
        "/start"], "the update was never confirmed, so it is offered again"


async def test_confirmed_updates_may_be_offered_again_as_after_a_crash(tg: FakeTelegram) -> None:
    for text in ("a", "b", "c"):
        await tg.send_text(1, text)
    batch = (await call(tg, "getUpdates"))["result"]
    ids = [u["update_id"] for u in batch]
    await call(tg, "getUpdates", offset=ids[-1] + 1)   # confirms all three
    assert tg.pending_updates == []
    again = tg.offer_again(2)
    assert [u["update_id"] for u in again] == ids[1:]
    await tg.send_text(1, "d")
    texts = [u["message"]["text"] for u in (await call(tg, "getUpdates"))["result"]]
    assert texts == ["b", "c", "d"], "offered again first, in their order, then the new one"
