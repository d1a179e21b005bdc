"""/notify end to end against the emulator: the next lobby in a group reaches each subscriber once,
privately, with Join in one tap; only people the bot may write to; /notify off ends it."""

from __future__ import annotations

import asyncio

from tests.bot.conftest import ALICE, BOB
from tests.bot.groups import BOT, GROUP, open_lobby, seated
from tg_durak.app import BotApp
from tg_durak.emulator import FakeTelegram
from tg_durak.emulator.models import Message
from tg_durak.storage import Store

CAT, DAN = 503, 504
BELL, CANCEL = "🔔 Tell me about the next game", "✖ Cancel"


def notices(tg: FakeTelegram, user_id: int) -> list[Message]:
    """The private messages telling of a lobby."""
    return [m for m in tg.messages(user_id) if "A new game opens in" in m.text
            or "открывается новая игра" in m.text]


async def reply_to(tg: FakeTelegram, user_id: int, text: str) -> Message:
    """`user_id` sends `text` in the group; the bot's answer."""
    before = len(tg.messages(GROUP))
    await tg.send_text(user_id, text, chat_id=GROUP)
    return await tg.wait_for(lambda: len(tg.messages(GROUP)) > before and next(
        (m for m in tg.messages(GROUP)[before:] if m.from_bot), None), timeout=60)


async def _private_start(tg: FakeTelegram, user_id: int) -> None:
    await tg.send_text(user_id, "/start")
    await tg.wait_for(lambda: tg.last_message(user_id) is not None, timeout=60)


async def test_the_next_lobby_reaches_each_subscriber_once(tg: FakeTelegram, bot: BotApp,
                                                           store: Store) -> None:
    tg.add_user(CAT, "Cat", language_code="en")
    tg.add_user(DAN, "Dan", language_code="ru")
    tg.add_group(GROUP, "Durak club", members=[ALICE, BOB, CAT, DAN], creator=ALICE)
    for person in (ALICE, BOB, DAN):
        await _private_start(tg, person)
    assert "I will write to you" in (await reply_to(tg, BOB, f"/notify@{BOT}")).text
    assert "already" in (await reply_to(tg, BOB, f"/notify@{BOT}")).text
    # Cat never opened the bot: he is shown the way there first, and is not on the list.
    cat = await reply_to(tg, CAT, f"/notify@{BOT}")
    assert "open the private chat" in cat.text and cat.buttons[0][0].url.startswith(
        f"https://t.me/{BOT}?start=")
    assert "/notify off" in (await reply_to(tg, CAT, f"/notify@{BOT} maybe")).text
    await reply_to(tg, ALICE, f"/notify@{BOT}")   # the host of the next lobby: not told of it

    lobby = await open_lobby(tg, ALICE)
    # Dan asks with the lobby's 🔔 (Russian): too late for this lobby, told of the next one.
    answer = await tg.press(DAN, lobby, BELL)
    assert answer.show_alert and "Напишу тебе" in answer.text
    await tg.wait_for(lambda: len(notices(tg, BOB)) == 1, timeout=60, what="Bob's notice")
    notice = notices(tg, BOB)[0]
    assert "Durak club" in notice.text and "Alice" in notice.text
    join = notice.buttons[0][0]
    assert join.url is not None and join.url.startswith(f"https://t.me/{BOT}?start=")
    await tg.follow_url(BOB, join.url)   # one tap: seated
    await tg.wait_for(lambda: seated(tg, lobby, "Bob"), timeout=60, what="Bob seated")
    await asyncio.sleep(1.0)   # the lobby changed: nobody is told again
    assert len(notices(tg, BOB)) == 1
    assert notices(tg, ALICE) == notices(tg, CAT) == notices(tg, DAN) == []

    # The next lobby: Bob and Dan hear of it, once each.
    await tg.press(ALICE, tg.message(GROUP, lobby.message_id), CANCEL)
    lobby = await open_lobby(tg, ALICE)
    await tg.wait_for(lambda: len(notices(tg, BOB)) == 2 and len(notices(tg, DAN)) == 1,
                      timeout=60, what="the second lobby's notices")
    assert "открывается новая игра" in notices(tg, DAN)[0].text
    # Bob stops (in the group); Dan with the button under his notice.
    assert "No more messages" in (await reply_to(tg, BOB, f"/notify@{BOT} off")).text
    dan_notice = notices(tg, DAN)[0]
    stop = await tg.press(DAN, dan_notice, dan_notice.buttons[1][0])
    assert "Больше не пишу" in stop.text
    await tg.press(ALICE, tg.message(GROUP, lobby.message_id), CANCEL)
    await open_lobby(tg, ALICE)
    await asyncio.sleep(1.0)
    assert (len(notices(tg, BOB)), len(notices(tg, DAN))) == (2, 1)
    assert notices(tg, ALICE) == notices(tg, CAT) == []
