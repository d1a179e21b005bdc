"""The bot's health, readiness and metrics over HTTP, in polling mode: a played game moves
the counters, and every metric the alert rules and the dashboard name is exposed."""

from __future__ import annotations

import json
import re
import socket
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path

import aiohttp
import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.bot.app_pages import open_page
from tests.bot.conftest import ALICE, game_message, play_to_end, settings_for
from tg_durak.app import BotApp
from tg_durak.emulator import FakeTelegram

DEPLOY = Path(__file__).parents[2] / "deploy"
# The series a histogram, counter or info gives besides its family's name.
SUFFIXES = re.compile(r"_(bucket|count|sum|created|info)$")
TOKEN = "scrape-me"


def own_address() -> str | None:
    """This machine's address on its network, as another machine would reach it (None: it has
    none but loopback)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("192.0.2.1", 9))   # no packet is sent: the route picks the address
        except OSError:
            return None
        address: str = s.getsockname()[0]
    return None if address.startswith("127.") else address


@pytest.fixture
async def listening_bot(tg: FakeTelegram, db_path: str) -> AsyncIterator[BotApp]:
    """The bot's web server on every address, with a metrics token."""
    app = BotApp(replace(settings_for(tg, db_path), web_host="0.0.0.0", metrics_token=TOKEN))
    await app.start()
    yield app
    await app.stop()


def url(bot: BotApp, path: str) -> str:
    return f"http://127.0.0.1:{bot.web.port}{path}"


async def samples(http: aiohttp.ClientSession, bot: BotApp) -> dict[tuple, float]:
    async with http.get(url(bot, "/metrics")) as response:
        assert response.status == 200
        text = await response.text()
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(text) for s in family.samples}


def total(found: dict[tuple, float], name: str, **labels: str) -> float:
    return sum(value for (sample, pairs), value in found.items()
               if sample == name and set(labels.items()) <= set(pairs))


async def test_health_and_readiness(bot: BotApp, http: aiohttp.ClientSession) -> None:
    async with http.get(url(bot, "/healthz")) as response:
        assert response.status == 200
    async with http.get(url(bot, "/readyz")) as response:
        assert response.status == 200, await response.text()


async def test_not_ready_once_stopping(tg: FakeTelegram, bot: BotApp,
                                       http: aiohttp.ClientSession) -> None:
    bot.readiness.stopping()   # the first step of bot.stop(), as the stack runs it
    async with http.get(url(bot, "/readyz")) as response:
        assert response.status == 503 and "stopping" in await response.text()


async def test_a_played_game_moves_the_counters(tg: FakeTelegram, bot: BotApp,
                                                http: aiohttp.ClientSession) -> None:
    before = await samples(http, bot)
    assert total(before, "durak_ready") == 1
    await tg.send_text(ALICE, "/play")
    await tg.wait_for(lambda: tg.last_message(ALICE) is not None)
    setup = tg.last_message(ALICE)
    await tg.press(ALICE, setup, "▶ Start")
    await tg.wait_for(lambda: game_message(tg, ALICE) is not None)
    await play_to_end(tg, ALICE, seed=3)
    after = await samples(http, bot)
    assert total(after, "durak_taps_total") > total(before, "durak_taps_total")
    assert total(after, "durak_updates_total", kind="callback_query", outcome="handled") > 0
    assert total(after, "durak_update_seconds_count", kind="callback_query") > 0
    assert total(after, "durak_telegram_requests_total", method="answerCallbackQuery",
                 outcome="ok") > 0
    assert total(after, "durak_telegram_requests_total", method="editMessageText") > 0
    assert total(after, "durak_computer_decisions_total") > total(
        before, "durak_computer_decisions_total")
    assert total(after, "durak_build_info", version="0.1.0") == 1


def named_in_deploy() -> set[str]:
    alerts = (DEPLOY / "prometheus" / "alerts.yml").read_text()
    board = json.loads((DEPLOY / "grafana" / "durak.json").read_text())
    exprs = [alerts] + [t["expr"] for panel in board["panels"] for t in panel["targets"]]
    return {SUFFIXES.sub("", name) for text in exprs for name in re.findall(r"durak_\w+", text)}


async def test_the_alerts_and_dashboard_name_exposed_metrics(
        app_bot: BotApp, http: aiohttp.ClientSession) -> None:
    await app_bot.tables.restart.heartbeat()   # the heartbeat age is there once one is written
    app_bot.readiness.beat()
    async with http.get(url(app_bot, "/metrics")) as response:
        text = await response.text()
    # A family with labels is listed before its first sample (updates, say).
    exposed = {SUFFIXES.sub("", family.name) for family in text_string_to_metric_families(text)}
    named = {name.removesuffix("_total") for name in named_in_deploy()}
    assert named and named <= exposed, named - exposed


async def test_metrics_from_another_machine_need_the_token(
        listening_bot: BotApp, http: aiohttp.ClientSession) -> None:
    address = own_address()
    if address is None:
        pytest.skip("this machine has no address but loopback")
    metrics = f"http://{address}:{listening_bot.web.port}/metrics"
    async with http.get(metrics) as response:
        assert response.status == 403
    async with http.get(metrics, headers={"Authorization": "Bearer wrong"}) as response:
        assert response.status == 403
    async with http.get(metrics, headers={"Authorization": f"Bearer {TOKEN}"}) as response:
        assert response.status == 200
        assert "durak_ready 1.0" in await response.text()
    async with http.get(f"http://{address}:{listening_bot.web.port}/healthz") as response:
        assert response.status == 200   # health is no secret: a prober may live elsewhere


async def test_app_moves_are_timed_and_its_sockets_counted(
        tg: FakeTelegram, app_bot: BotApp, http: aiohttp.ClientSession) -> None:
    await tg.send_text(ALICE, "/play")
    setup = await tg.wait_for(lambda: tg.last_message(ALICE))
    await tg.press(ALICE, setup, "▶ Start")
    message = await tg.wait_for(lambda: game_message(tg, ALICE), what="the game message")
    page = await open_page(http, app_bot.settings.webapp_url or "",
                           tg.open_web_app(ALICE, message, "🃏 Table"))
    assert (await page.receive())["type"] == "welcome"
    state = await page.state()
    while not state["legal"]:   # the computers lead first, maybe
        state = await page.state(newer_than=state["version"])
    assert (await page.move(state, state["legal"][0]))["ok"]
    found = await samples(http, app_bot)
    assert total(found, "durak_app_move_seconds_count") == 1
    assert total(found, "durak_app_sockets") == 1
    await page.close()
