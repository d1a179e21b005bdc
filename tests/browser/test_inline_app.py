"""An inline game's table in the Mini App: Alice posts a game into her private chat with Bob
through inline mode (the bot is not in that chat); both join, and both open the table from the
message's t.me/<bot>/<app>?startapp= link (a web_app button is refused there) and play the
whole game in the app, which the inline message follows."""

from __future__ import annotations

import pytest
from playwright.async_api import expect

from tests.bot.conftest import ALICE, BOB
from tests.bot.groups import BOT
from tests.browser.conftest import OpenPhone
from tests.browser.people import next_mover, play_one
from tg_durak.app import BotApp
from tg_durak.emulator import FakeTelegram
from tg_durak.i18n.translate import translator

pytestmark = pytest.mark.asyncio(loop_scope="session")

OPEN_TABLE = "🃏 Open the table"
MAX_TAPS = 600


async def test_the_app_opened_from_an_inline_games_link_plays_the_table(
        tg: FakeTelegram, app_bot: BotApp, phone: OpenPhone) -> None:
    t = translator("en")
    tg.set_inline()
    chat = tg.add_dialog(ALICE, BOB)
    table = await tg.choose_inline(ALICE, t("inline.game", game=t("variant.transfer")),
                                   chat_id=chat.id)
    for person, name in ((ALICE, "Alice"), (BOB, "Bob")):   # neither has opened the bot
        answer = await tg.press(person, tg.message(chat.id, table.message_id),
                                t("btn.lobby.join"))
        assert answer.url is not None and answer.url.startswith(f"https://t.me/{BOT}?start=")
        await tg.follow_url(person)
        await tg.wait_for(lambda n=name: f". {n}" in tg.message(chat.id, table.message_id).text)
    link = tg.message(chat.id, table.message_id).button(OPEN_TABLE).url
    assert link is not None and "?startapp=" in link
    alice = await phone(tg.open_start_app(ALICE, link, chat_id=chat.id))
    bob = await phone(tg.open_start_app(BOB, link, chat_id=chat.id))
    for p in (alice, bob):
        await expect(p.page.locator("body")).to_have_attribute("data-view", "lobby")
    await alice.page.get_by_role("button", name="Start", exact=True).tap()   # her table
    for p in (alice, bob):
        await expect(p.page.locator("body")).to_have_attribute("data-view", "seat")
    edits = tg.message(chat.id, table.message_id).edit_count

    pages = [alice.page, bob.page]
    for _ in range(MAX_TAPS):
        what, _card = await play_one(await next_mover(pages))
        if what == "over":
            break
    else:
        raise AssertionError(f"the game did not end in {MAX_TAPS} taps")
    await tg.wait_for(lambda: t("btn.lobby.rematch") in [
        b.text for row in tg.message(chat.id, table.message_id).buttons for b in row],
        timeout=60, what="the inline message to show the result")
    assert tg.message(chat.id, table.message_id).edit_count > edits
