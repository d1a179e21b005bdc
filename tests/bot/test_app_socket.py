"""The Mini App's socket, end to end: the real bot and its web server against the emulator, a
page's socket opened from the launch URL a Telegram client would open.

Who is who (signed, fresh launch data only), what each socket is sent (a seat's hand to that seat
only: R11), hostile frames, and the chat message that waits while the app is open.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from dataclasses import replace
from urllib.parse import parse_qsl, urlencode

import aiohttp
import pytest

from tests.bot.app_pages import FRAME_TIMEOUT, Page, init_data_of, open_page, serving_app
from tests.bot.conftest import ALICE, BOB, game_message, settings_for
from tests.bot.faults import shown_version
from tests.bot.groups import GROUP, join, open_lobby, start
from tg_durak.app import BotApp
from tg_durak.emulator import FakeTelegram
from tg_durak.render.app_state import code
from tg_durak.tables.live import LiveTable
from tg_durak.webapp.frames import MAX_FRAME

CAROL, DAVE = 503, 504
TABLE = "🃏 Table"


async def private_game(tg: FakeTelegram, user_id: int = ALICE):
    await tg.send_text(user_id, "/play")
    setup = await tg.wait_for(lambda: tg.last_message(user_id))
    await tg.press(user_id, setup, "▶ Start")
    return await tg.wait_for(lambda: game_message(tg, user_id), what="the game message")


def app_url(bot: BotApp) -> str:
    return bot.settings.webapp_url


async def opened(http: aiohttp.ClientSession, bot: BotApp, launch: str) -> tuple[Page, dict]:
    """The page's socket and its first state, after the welcome."""
    page = await open_page(http, app_url(bot), launch)
    welcome = await page.receive()
    assert welcome["type"] == "welcome", welcome
    return page, await page.state()


async def state_now(page: Page, live: LiveTable) -> dict:
    """The page's state of the table as it is now: sent already, or once it comes."""
    version = live.game.version
    return await page.seen_or_until(
        lambda f: f["type"] == "state" and f["version"] == version, f"state {version}")


async def changed(live: LiveTable, version: int) -> None:
    """Until the table has moved past `version` (a move landed, or a window closed)."""
    async with asyncio.timeout(FRAME_TIMEOUT):
        while live.game.version == version and not live.finished:
            await asyncio.sleep(0.02)


def cards_of(state: dict) -> set[str]:
    return set(state["hand"])


def every_card_in(frames: list[dict]) -> set[str]:
    """Each card code any frame names anywhere."""
    text = json.dumps(frames)
    codes = {f"{rank}{suit}" for rank in (*map(str, range(2, 11)), "J", "Q", "K", "A")
             for suit in "scdh"}
    return {c for c in codes if f'"{c}"' in text}


async def test_the_game_message_opens_the_app_and_waits_while_it_is_open(
        tg: FakeTelegram, app_bot: BotApp, http: aiohttp.ClientSession) -> None:
    message = await private_game(tg)
    button = next(b for row in message.buttons for b in row if b.text == TABLE)
    assert button.web_app == app_url(app_bot)
    page, state = await opened(http, app_bot, tg.open_web_app(ALICE, message, TABLE))
    assert state["view"] == "seat" and state["me"] == 0 and len(state["hand"]) == 6
    assert state["text"]["header"].startswith("Trump")
    edits = tg.message(ALICE, message.message_id).edit_count

    # A few moves in the app: each is answered, and a newer state follows it.
    moves = 0
    while moves < 4 and not state["over"]:
        if state["legal"]:
            answer = await page.move(state, state["legal"][0])
            assert answer["ok"], answer
            moves += 1
        state = await page.state(newer_than=state["version"])
    assert tg.message(ALICE, message.message_id).edit_count == edits, \
        "the chat message is left alone while the app is open"

    await page.close()
    shown = await tg.wait_for(
        lambda: (m := tg.message(ALICE, message.message_id)).edit_count > edits and m,
        what="the chat message brought up to date once the app closed")
    assert shown.edit_count >= edits + 1
    live = app_bot.tables.live(state["table"])
    assert live is None or live.game.version >= state["version"]


async def test_forged_expired_and_other_bots_launches_are_refused(
        tg: FakeTelegram, app_bot: BotApp, http: aiohttp.ClientSession) -> None:
    message = await private_game(tg)
    good = tg.open_web_app(ALICE, message, TABLE)
    fields = dict(parse_qsl(init_data_of(good)))
    fields["user"] = fields["user"].replace("Alice", "Alicf")   # one byte changed
    forged = urlencode(fields)
    stale = tg.open_web_app(ALICE, message, TABLE, auth_date=int(time.time()) - 25 * 3600)
    other = tg.open_web_app(ALICE, message, TABLE, token="123456:OTHER-bot-token-of-someone-else")
    cases = [(f"{app_url(app_bot)}#tgWebAppData={forged}", "launch_forged"),
             (stale, "launch_expired"), (other, "launch_forged")]
    for launch, why in cases:
        page = await open_page(http, app_url(app_bot), launch)
        refusal = await page.receive()
        assert refusal["type"] == "error" and refusal["code"] == why, refusal
        assert "Telegram" in refusal["text"] or "day" in refusal["text"]
        closing = await page.ws.receive()
        assert closing.type == aiohttp.WSMsgType.CLOSE and page.ws.close_code == 4401
    fresh, state = await opened(http, app_bot, good)   # the real launch still opens it
    assert state["view"] == "seat"
    await fresh.close()


async def test_a_foreign_origin_gets_no_socket(
        tg: FakeTelegram, app_bot: BotApp, http: aiohttp.ClientSession) -> None:
    with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
        await http.ws_connect(app_url(app_bot) + "ws", origin="https://evil.example")
    assert refused.value.status == 403


async def test_the_page_is_served_with_a_policy_that_allows_no_inline_script(
        app_bot: BotApp, http: aiohttp.ClientSession) -> None:
    async with http.get(app_url(app_bot)) as page:
        assert page.status == 200
        html = await page.text()
        policy = page.headers["Content-Security-Policy"]
    assert "script-src 'self' https://telegram.org;" in policy and "unsafe-inline" not in policy
    assert '<script type="module" src="static/js/main.js">' in html
    async with http.get(app_url(app_bot) + "static/js/main.js") as module:
        assert module.status == 200 and "javascript" in module.content_type
    async with http.get(app_url(app_bot) + "static/../server.py") as escape:
        assert escape.status in (403, 404)
    # What the page shows before its socket's welcome, in the launch's language.
    async with http.get(app_url(app_bot) + "texts/ru") as texts:
        assert (await texts.json())["app.connecting"] == "Подключаюсь…"
    async with http.get(app_url(app_bot) + "texts/xx") as texts:
        assert (await texts.json())["app.connecting"] == "Connecting…"


async def test_bad_frames_are_answered_and_change_nothing(
        tg: FakeTelegram, app_bot: BotApp, http: aiohttp.ClientSession) -> None:
    message = await private_game(tg)
    page, state = await opened(http, app_bot, tg.open_web_app(ALICE, message, TABLE))
    table = app_bot.tables.live(state["table"])
    version = table.game.version
    for bad in ["not json", json.dumps({"type": "move", "id": 1, "version": 0,
                                        "move": "attack", "card": "1z"}),
                json.dumps({"type": "hello", "init_data": "again"}),
                json.dumps({"type": "move", "id": 1, "version": 0, "move": "attack",
                            "card": "x" * MAX_FRAME})]:
        await page.ws.send_str(bad)
        error = await page.until(lambda f: f["type"] == "error")
        assert error["code"] in ("bad_frame", "too_big") and error["text"]
    await page.ws.send_bytes(b"\x00\x01")
    assert (await page.until(lambda f: f["type"] == "error"))["code"] == "bad_frame"
    # A card not in his hand, and a move on a version that never was: refused by the rules.
    not_held = next(c for c in ("6s", "7s", "8s", "9s", "10s", "Js")
                    if c not in cards_of(state))
    refused = await page.move(state, {"move": "attack", "card": not_held})
    assert not refused["ok"] and refused["text"]
    future = await page.move({**state, "version": version + 50}, {"move": "take"})
    assert not future["ok"] and future["key"] == "tap.stale"
    # The computer may have moved meanwhile (or played her timed-out turn), she did not.
    hers = [e for e in table.game.log[version:] if e[0] == "act" and e[1] == 0 and not e[6]]
    assert hers == [], hers
    await page.close()


async def test_a_flood_of_frames_is_slowed_not_served(
        tg: FakeTelegram, app_bot: BotApp, http: aiohttp.ClientSession) -> None:
    message = await private_game(tg)
    page, _ = await opened(http, app_bot, tg.open_web_app(ALICE, message, TABLE))
    for n in range(60):
        await page.ws.send_json({"type": "move", "id": 1000 + n, "version": 10**6,
                                 "move": "take"})
    slowed = await page.until(lambda f: f["type"] == "error" and f["code"] == "too_fast")
    assert slowed["text"].startswith("Not so fast")
    await page.close()


@pytest.fixture
async def unhurried_bot(tg: FakeTelegram, db_path: str) -> AsyncIterator[BotApp]:
    """`app_bot` at the rules' own pace: a turn of 30 s, not the suite's 3 s, so that a test
    whose people take turns by hand is not overtaken by the clock on a busy machine (the
    seats would time out, go away, and the computers would play the game meanwhile)."""
    async with serving_app(tg, replace(settings_for(tg, db_path), time_scale=1.0)) as app:
        yield app


async def test_each_socket_is_sent_its_own_hand_only_and_an_onlooker_none(
        tg: FakeTelegram, unhurried_bot: BotApp, http: aiohttp.ClientSession) -> None:
    """R11, read off the wire: every frame sent to Bob's socket, and to Carol's (not seated),
    holds none of Alice's cards; Bob's move in the chat reaches Alice's app, and Alice's move
    in the app reaches Bob's chat."""
    tg.add_user(CAROL, "Carol", language_code="en")
    tg.add_group(GROUP, "Durak club", members=[ALICE, BOB, CAROL], creator=ALICE)
    for person in (ALICE, BOB):
        await tg.send_text(person, "/start")
    lobby = await open_lobby(tg, ALICE)
    await join(tg, BOB, lobby, "Bob")
    await start(tg, ALICE, lobby, [ALICE, BOB])
    table_message = tg.message(GROUP, lobby.message_id)
    link = next(b.url for row in table_message.buttons for b in row
                if b.text == "🃏 Open the table")
    alice, alice_state = await opened(http, unhurried_bot, tg.open_web_app(
        ALICE, game_message(tg, ALICE), TABLE))
    bob, bob_state = await opened(http, unhurried_bot, tg.open_web_app(
        BOB, game_message(tg, BOB), TABLE))
    carol, carol_state = await opened(http, unhurried_bot, tg.open_start_app(
        CAROL, link, chat_id=GROUP))
    assert carol_state["view"] == "spectator" and carol_state["hand"] == []
    assert alice_state["table"] == bob_state["table"] == carol_state["table"]
    live = unhurried_bot.tables.live(alice_state["table"])

    # Both play in their apps for a while: Bob's socket and Carol's see every change.
    apps = {0: alice, 1: bob}
    for _ in range(4):
        before = live.game.version
        states = {seat: await state_now(page, live) for seat, page in apps.items()}
        # A Pass with nothing to throw in is not offered: the window closes without it.
        movers = [seat for seat, state in states.items() if state["legal"]]
        if movers:
            state = states[movers[0]]
            answer = await apps[movers[0]].move(state, state["legal"][0])
            assert answer["ok"], answer
        await changed(live, before)
        if live.finished:
            break

    # Bob closes his app: his chat message is brought up to date, and he plays there. His move
    # in the chat reaches Alice's app, and Alice's move in her app reaches his chat.
    await bob.close()
    moved_in_chat = False
    for _ in range(6):
        if live.finished or moved_in_chat:
            break
        before = live.game.version
        state = await state_now(alice, live)
        if state["legal"]:   # Alice in the app
            answer = await alice.move(state, state["legal"][0])
            assert answer["ok"], answer
            await tg.wait_for(lambda b=before: live.finished or (
                (m := game_message(tg, BOB)) is not None and shown_version(m) != b),
                what="Alice's app move in Bob's chat")
        elif live.game.legal_actions(1):   # Bob in the chat
            def his_move(before: int = before) -> str | None:
                """A button of Bob's chat that moves, once his message shows the table now
                (his private chat's edits wait their budget)."""
                message = game_message(tg, BOB)
                return None if message is None else next(
                    (b.text for row in message.buttons for b in row
                     if b.callback_data and b.callback_data.startswith(f"m:{live.id}:{before}:")
                     and (b.text.startswith("•") or b.text in ("Take", "Pass"))), None)

            await tg.press(BOB, game_message(tg, BOB),
                           await tg.wait_for(his_move, what="Bob's move in his chat"))
            await alice.seen_or_until(lambda f, b=before: f["type"] == "state"
                                      and f["version"] > b, "Bob's chat move in Alice's app")
            moved_in_chat = True
        else:   # nobody has a move: the round closes by itself
            await changed(live, before)
    assert moved_in_chat or live.finished

    alice_cards = {code(c) for c in live.game.hand(0)}
    known_to_all = {c for state in carol.frames if state["type"] == "state"
                    for s in state["seats"] for c in s["known"]}
    on_table = {c for f in carol.frames + bob.frames if f["type"] == "state"
                for p in f["pairs"] for c in (p["attack"], p["defence"]) if c}
    trumps = {f["trump"]["card"] for f in carol.frames if f["type"] == "state"}
    public = known_to_all | on_table | trumps
    # What Bob once held himself (and played, or transferred: Alice may hold it now) he knows.
    his_own = {c for f in bob.frames if f["type"] == "state" for c in f["hand"]}
    assert not (every_card_in(bob.frames) & alice_cards) - public - his_own, \
        "Bob saw Alice's cards"
    assert not (every_card_in(carol.frames) & alice_cards) - public, "Carol saw a hand"
    for page in (alice, carol):
        await page.close()


async def test_someone_who_never_opened_the_bot_joins_and_plays_in_the_app(
        tg: FakeTelegram, app_bot: BotApp, http: aiohttp.ClientSession) -> None:
    """Dave never wrote to the bot: the lobby's link opens the app, Join seats him there; he
    plays while his app is open and counts as away (said on his seat) once it is closed."""
    tg.add_user(DAVE, "Dave", language_code="en")
    tg.add_group(GROUP, "Durak club", members=[ALICE, DAVE], creator=ALICE)
    await tg.send_text(ALICE, "/start")
    lobby = await open_lobby(tg, ALICE)
    link = next(b.url for row in tg.message(GROUP, lobby.message_id).buttons for b in row
                if b.text == "🃏 Open the table")
    dave, state = await opened(http, app_bot, tg.open_start_app(DAVE, link, chat_id=GROUP))
    assert state["view"] == "lobby" and state["lobby"]["can_join"]
    joined = await dave.answer(await dave.send({"type": "join"}))
    assert joined["ok"] and joined["key"] == "lobby.joined"
    state = await dave.seen_or_until(lambda f: f["type"] == "state" and f["lobby"]
                                     and f["lobby"]["joined"])
    assert state["lobby"]["seats"] == ["Alice", "Dave"]
    assert tg.messages(DAVE) == [], "the bot never wrote to him first"

    await start(tg, ALICE, lobby, [ALICE])
    state = await dave.until(lambda f: f["type"] == "state" and f["view"] == "seat")
    assert len(state["hand"]) == 6 and not state["seats"][state["me"]]["away"]
    live = app_bot.tables.live(state["table"])
    seat = state["me"]
    assert seat not in live.away, "his app is open: he plays himself"
    await dave.close()
    await tg.wait_for(lambda: seat in live.away or live.finished,
                      what="Dave away once his app closed")
    alice, alice_state = await opened(http, app_bot, tg.open_web_app(
        ALICE, game_message(tg, ALICE), TABLE))
    if not alice_state["over"]:
        dave_seat = alice_state["seats"][seat]
        assert dave_seat["away"] and dave_seat["app_closed"]
    assert tg.messages(DAVE) == []
    await alice.close()
