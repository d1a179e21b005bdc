"""The bot by webhook (`python -m tg_durak webhook`): Telegram, here the emulator, posts each
update to the bot's web server with the secret header; an update is applied at most once
although it is delivered at least once, and one the bot could not handle is answered 503 so that
it is offered again, and applied then."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from collections.abc import AsyncIterator
from dataclasses import replace

import aiohttp
import pytest

from tests.bot.app_pages import free_port
from tests.bot.conftest import ALICE, BOB, play_to_end, settings_for, started_bot
from tests.bot.faults import exit_code, problems, quick_game
from tests.bot.test_store_failures import locked_by_another_process
from tests.processes import START_TIMEOUT
from tg_durak.app import BotApp, set_webhook
from tg_durak.emulator import FakeTelegram
from tg_durak.i18n.translate import translator
from tg_durak.storage import StoreUnavailable

SECRET = "durak-webhook_Secret1"
NOT_SAVED = translator("en")("error.not_saved")


def hook_url(port: int) -> str:
    return f"http://127.0.0.1:{port}/telegram/updates"


@pytest.fixture
async def unregistered_bot(tg: FakeTelegram, db_path: str) -> AsyncIterator[BotApp]:
    """The bot in webhook mode on a free port; the emulator does not post to it yet."""
    port = free_port()
    settings = replace(settings_for(tg, db_path), web_port=port, webhook_url=hook_url(port),
                       webhook_secret=SECRET)
    app = BotApp(settings, webhook=True)
    await app.start()
    yield app
    await app.stop()


@pytest.fixture
async def hook_bot(unregistered_bot: BotApp) -> BotApp:
    """The same, its webhook registered as set-webhook does."""
    await set_webhook(unregistered_bot.settings)
    return unregistered_bot


def posts_of(tg: FakeTelegram, update_id: int) -> list[int | None]:
    """The statuses the bot answered the posts of one update with, in order."""
    return [post.status for post in tg.webhooks.posts if post.update_id == update_id]


def greetings(tg: FakeTelegram, user_id: int) -> list[str]:
    return [m.text for m in tg.messages(user_id) if m.text.startswith("Hi, ")]


async def greeted(tg: FakeTelegram, bot: BotApp, user_id: int) -> list[str]:
    """Every greeting he has, once the first came and nothing is left to send."""
    await tg.wait_for(lambda: greetings(tg, user_id), what="a greeting")
    await bot.publisher.flush()
    return greetings(tg, user_id)


async def test_a_private_game_is_played_to_its_end_through_the_webhook(
        tg: FakeTelegram, hook_bot: BotApp, db_path: str) -> None:
    await quick_game(tg, ALICE)
    final = await play_to_end(tg, ALICE, seed=3)
    assert "Play again" in str(final.buttons)
    assert tg.calls_to("getUpdates", "deleteWebhook") == []
    assert len(tg.calls_to("setWebhook")) == 1, "set-webhook's only: not the bot's at start"
    assert tg.pending_updates == []
    assert all(post.status == 200 for post in tg.webhooks.posts)
    await hook_bot.publisher.flush()
    assert await problems(db_path) == []


async def test_a_post_without_the_secret_is_refused_and_changes_nothing(
        tg: FakeTelegram, unregistered_bot: BotApp) -> None:
    bot = unregistered_bot
    await tg.send_text(ALICE, "/start")
    (update,) = tg.pending_updates   # posted by hand below, as a stranger would try
    async with aiohttp.ClientSession() as http:
        for headers in ({}, {"X-Telegram-Bot-Api-Secret-Token": "wrong"},
                        {"X-Telegram-Bot-Api-Secret-Token": SECRET + "x"}):
            async with http.post(bot.settings.webhook_url, json=update, headers=headers) as r:
                assert r.status == 401
        assert await bot.store.users.get(ALICE) is None, "nothing of them was handled"
        headers = {"X-Telegram-Bot-Api-Secret-Token": SECRET}
        async with http.post(bot.settings.webhook_url, json=update, headers=headers) as r:
            assert r.status == 200
    assert len(await greeted(tg, bot, ALICE)) == 1, "the right secret's post only"


async def test_an_update_delivered_twice_is_applied_once(
        tg: FakeTelegram, hook_bot: BotApp) -> None:
    await tg.send_text(ALICE, "/start")
    assert len(await greeted(tg, hook_bot, ALICE)) == 1
    (again,) = tg.offer_again(1)
    await tg.wait_for(lambda: posts_of(tg, again["update_id"]) == [200, 200])
    assert len(await greeted(tg, hook_bot, ALICE)) == 1


async def test_a_locked_database_answers_503_and_the_update_is_applied_once_it_is_back(
        tg: FakeTelegram, hook_bot: BotApp, db_path: str) -> None:
    async with locked_by_another_process(hook_bot, db_path):
        message = await tg.send_text(ALICE, "/start")
        update_id = tg.pending_updates[-1]["update_id"]
        await tg.wait_for(lambda: posts_of(tg, update_id)[:2] == [503, 503],
                          what="the update refused twice")
        assert tg.messages(ALICE) == [], "nobody told him anything yet"
    assert len(await greeted(tg, hook_bot, ALICE)) == 1
    assert posts_of(tg, update_id)[-1] == 200 and set(posts_of(tg, update_id)) == {503, 200}
    assert NOT_SAVED not in [m.text for m in tg.messages(ALICE)]
    assert message.text == "/start"


async def test_a_handler_that_fails_after_the_claim_releases_it_and_the_next_offer_applies_it(
        tg: FakeTelegram, hook_bot: BotApp, monkeypatch: pytest.MonkeyPatch) -> None:
    users = hook_bot.store.users
    ensure = users.ensure
    failed: list[int] = []

    async def fails_once(user_id: int, *args, **kwargs):
        if not failed:
            failed.append(user_id)
            raise StoreUnavailable("disk I/O error")
        return await ensure(user_id, *args, **kwargs)

    monkeypatch.setattr(users, "ensure", fails_once)
    await tg.send_text(ALICE, "/start")
    update_id = tg.pending_updates[-1]["update_id"]
    assert len(await greeted(tg, hook_bot, ALICE)) == 1
    assert failed == [ALICE], "the first offer met the failure after its claim"
    assert posts_of(tg, update_id) == [503, 200]
    assert NOT_SAVED not in [m.text for m in tg.messages(ALICE)]


async def test_the_webhook_command_answers_and_stops_on_sigterm(
        tg: FakeTelegram, db_path: str) -> None:
    port = free_port()
    env = {"DURAK_WEB_PORT": str(port), "DURAK_WEBHOOK_URL": hook_url(port),
           "DURAK_WEBHOOK_SECRET": SECRET}
    # Not subprocess.run: the emulator answering it runs on this loop.
    registering = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tg_durak", "set-webhook",
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "BOT_TOKEN": tg.token, "TELEGRAM_API_URL": tg.url,
             "LOG_LEVEL": "WARNING", **env})
    out, err = await asyncio.wait_for(registering.communicate(), START_TIMEOUT)
    assert registering.returncode == 0, err.decode()
    assert f"url: {hook_url(port)}" in out.decode().splitlines()
    assert "callback_query" in tg.calls_to("setWebhook")[0].params["allowed_updates"]
    proc = await started_bot(tg, db_path, "webhook", **env)
    try:
        await tg.send_text(ALICE, "/start")
        await tg.wait_for(lambda: greetings(tg, ALICE), timeout=120)
        proc.send_signal(signal.SIGTERM)
        assert await exit_code(proc) == 0, proc.stdout.read().decode()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert tg.calls_to("getUpdates", "deleteWebhook") == []
    assert len(tg.calls_to("setWebhook")) == 1
    out = proc.stdout.read().decode()
    assert "Traceback" not in out, out


async def test_webhook_and_set_webhook_need_both_settings(tg: FakeTelegram, db_path: str) -> None:
    for command in ("webhook", "set-webhook"):
        done = subprocess.run(
            [sys.executable, "-m", "tg_durak", command], capture_output=True, text=True,
            timeout=300, env={**os.environ, "BOT_TOKEN": tg.token, "TELEGRAM_API_URL": tg.url,
                              "DURAK_DB": db_path, "DURAK_WEBHOOK_URL": "https://d.example/h"})
        assert done.returncode == 2
        assert done.stderr.startswith("tg-durak: DURAK_WEBHOOK_SECRET is not set"), done.stderr
        assert len(done.stderr.splitlines()) == 1
    assert tg.calls == []


async def test_a_stop_lets_the_update_under_way_finish_and_answers_new_posts_503(
        tg: FakeTelegram, unregistered_bot: BotApp, monkeypatch: pytest.MonkeyPatch) -> None:
    bot, users = unregistered_bot, unregistered_bot.store.users
    ensure, entered, go_on = users.ensure, asyncio.Event(), asyncio.Event()

    async def held(*args, **kwargs):
        entered.set()
        await go_on.wait()
        return await ensure(*args, **kwargs)

    monkeypatch.setattr(users, "ensure", held)
    await tg.send_text(ALICE, "/start")
    await tg.send_text(BOB, "/start")
    first, second = tg.pending_updates
    headers = {"X-Telegram-Bot-Api-Secret-Token": SECRET}
    async with aiohttp.ClientSession() as http:
        async def post(update: dict) -> int:
            async with http.post(bot.settings.webhook_url, json=update, headers=headers) as r:
                return r.status

        under_way = asyncio.create_task(post(first))
        await entered.wait()
        stopping = asyncio.create_task(bot.stop())
        for _ in range(100):   # the stop's first step comes before any of its waits
            if not bot.webhook.accepting:
                break
            await asyncio.sleep(0)
        assert not bot.webhook.accepting, "the stop closed the door to new posts"
        assert await post(second) == 503
        go_on.set()
        assert await under_way == 200
        await stopping
    assert greetings(tg, ALICE) and not greetings(tg, BOB)
