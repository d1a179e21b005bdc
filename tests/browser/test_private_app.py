"""Alice plays against the computer in the Mini App, in a real browser at phone size: a whole game
by tapping, and refused launches (a network cut: test_connection_app.py)."""

from __future__ import annotations

import pytest
from playwright.async_api import expect

from tests.bot.conftest import ALICE, game_message
from tests.browser.conftest import WAIT_MS, OpenPhone, Phone
from tests.browser.people import play_one
from tg_durak.app import BotApp
from tg_durak.emulator import FakeTelegram
from tg_durak.emulator.models import Message

pytestmark = pytest.mark.asyncio(loop_scope="session")

TABLE_BUTTON = "🃏 Table"
MAX_TAPS = 400


def plain(text: str) -> str:
    """A text of the chat as the page shows it: suits as text, not emoji (U+FE0F dropped)."""
    return text.replace("\ufe0f", "")


async def private_game(tg: FakeTelegram) -> Message:
    """Alice writes /start and taps Play: her game message against one computer."""
    await tg.send_text(ALICE, "/start")
    greeting = await tg.wait_for(lambda: tg.last_message(ALICE))
    await tg.press(ALICE, greeting, "▶ Play")
    return await tg.wait_for(lambda: game_message(tg, ALICE), what="Alice's game message")


async def open_table(tg: FakeTelegram, phone: OpenPhone, message: Message, **launch) -> Phone:
    """Alice taps the game message's Table button: the app opens and shows her seat."""
    p = await phone(tg.open_web_app(ALICE, message, TABLE_BUTTON, **launch))
    await expect(p.page.locator("body")).to_have_attribute("data-connected", "1")
    await expect(p.page.locator("body")).to_have_attribute("data-view", "seat")
    return p


async def test_alice_plays_a_whole_game_against_the_computer_by_tapping(
        tg: FakeTelegram, app_bot: BotApp, phone: OpenPhone) -> None:
    p = await open_table(tg, phone, await private_game(tg))
    page = p.page
    await expect(page.locator("#seats .seat")).to_have_count(1)
    await expect(page.locator("#hand button.card.in-hand").first).to_be_visible()

    tapped: list[str] = []
    for _ in range(MAX_TAPS):
        what, _ = await play_one(page)
        if what == "over":
            break
        tapped.append(what)
    else:
        raise AssertionError(f"no end after {MAX_TAPS} taps")

    assert "card" in tapped, "she played cards by tapping them"
    accepted = [f for f in p.frames if f["type"] == "answer" and f["ok"]]
    assert len(accepted) >= 5, f"the server took her moves: {accepted}"
    await expect(page.locator("#panel .result li").first).to_be_visible()
    result = " ".join(await page.locator("#panel .result li").all_inner_texts()).lower()
    assert any(word in result for word in ("durak", "draw", "safe")), result
    await expect(page.get_by_role("button", name="Play again", exact=True)).to_be_visible()
    await expect(page.locator("#hand button.card.playable")).to_have_count(0)
    # the chat says the same: the game over there too
    await tg.wait_for(lambda: any(b.callback_data == "u:again:" for row in game_message(
        tg, ALICE).buttons for b in row), timeout=WAIT_MS / 1000, what="the chat's game over")


def forged(url: str) -> str:
    """The launch URL with one hex digit of its signature changed."""
    at = url.index("hash%3D") + len("hash%3D") + 63   # the hash's last digit
    return url[:at] + ("0" if url[at] != "0" else "1") + url[at + 1:]


async def test_forged_expired_and_other_bots_launches_are_refused(
        tg: FakeTelegram, app_bot: BotApp, phone: OpenPhone) -> None:
    message = await private_game(tg)
    day_and_an_hour_ago = int(tg.clock()) - 25 * 3600
    refused = {
        "launch_forged": forged(tg.open_web_app(ALICE, message, TABLE_BUTTON)),
        "launch_expired": tg.open_web_app(ALICE, message, TABLE_BUTTON,
                                          auth_date=day_and_an_hour_ago),
        "other bot": tg.open_web_app(ALICE, message, TABLE_BUTTON, token="123:other"),
    }
    texts = {
        "launch_forged": "Telegram did not sign this launch. Open the table from the bot's chat.",
        "launch_expired": "This launch is more than a day old. Open the table from the bot's "
                          "chat again.",
    }
    for why, url in refused.items():
        code = "launch_expired" if why == "launch_expired" else "launch_forged"
        p = await phone(url)
        await expect(p.page.locator("#screen-text")).to_have_text(texts[code])
        await expect(p.page.locator("#screen")).to_be_visible()
        assert [f["code"] for f in p.frames] == [code], why   # the error, and nothing else
        await expect(p.page.locator("body")).to_have_attribute("data-connected", "0")
        await expect(p.page.locator("#hand button.card")).to_have_count(0)
        await expect(p.page.locator("#seats .seat")).to_have_count(0)
        await p.close()
    # The same button, untouched, opens her table.
    p = await open_table(tg, phone, message)
    await expect(p.page.locator("#screen")).to_be_hidden()
    await expect(p.page.locator("#hand button.card.in-hand").first).to_be_visible()
