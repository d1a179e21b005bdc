"""The table as a demanding player holds it, at 360×640 and 390×844: a big hand where every card
takes a fingertip and stays on the screen, six seats in Russian that read whole, a result panel
nothing covers, a drag that lands though states arrive under it, and a refused move that says
why. Each table is a position the test chose (tables.py)."""

from __future__ import annotations

import re
import time

import pytest
from playwright.async_api import Page, expect

from engine import Game
from tests.browser.conftest import SMALL, TALL, WAIT_MS, BotAt, OpenPhone, Phone
from tests.browser.people import VISIBLE_POINT, card_label, tap
from tests.browser.tables import DECK, Person, full_deal, six_players_mid_round
from tests.helpers.deals import attack, deal
from tg_durak.emulator import FakeTelegram
from tg_durak.i18n.translate import translator

pytestmark = pytest.mark.asyncio(loop_scope="session")

ALICE = Person(601, "Alice")
ALISA = Person(602, "Алиса", "ru")
FINGER = 44   # px each way: the smallest touch target the platforms advise
SIZES = pytest.mark.parametrize("viewport", [SMALL, TALL], ids=["360x640", "390x844"])
t = translator("en")
LIFTED = re.compile(r"\blifted\b")   # a dragged card's place in the hand


async def open_app(phones: OpenPhone, url: str, **options: object) -> Phone:
    p = await phones(url, **options)
    await expect(p.page.locator("body")).to_have_attribute("data-connected", "1")
    return p


# A card's bounding box inside the viewport, and a FINGER×FINGER square of it where a touch
# lands on the card itself (sampled every 11 px), if it has one.
TOUCH_AREA = """([card, finger]) => {
  const r = card.getBoundingClientRect();
  const inside = r.left >= 0 && r.top >= 0 && r.right <= innerWidth && r.bottom <= innerHeight;
  const mine = (x, y) => {
    const top = document.elementFromPoint(x, y);
    return Boolean(top && (top === card || card.contains(top)));
  };
  const step = (finger - 1) / 4;
  const fits = (x, y) => {
    for (let dy = 0.5; dy < finger; dy += step)
      for (let dx = 0.5; dx < finger; dx += step) if (!mine(x + dx, y + dy)) return false;
    return true;
  };
  for (let y = r.top; y + finger <= r.bottom; y += 2)
    for (let x = r.left; x + finger <= r.right; x += 2) if (fits(x, y)) return {inside, at: [x, y]};
  return {inside, at: null};
}"""


@SIZES
@pytest.mark.parametrize("cards", [20, 35])
async def test_every_card_of_a_big_hand_takes_a_fingertip_and_stays_on_the_screen(
        bot_at: BotAt, phones: OpenPhone, viewport: dict[str, int], cards: int) -> None:
    mine, theirs = DECK[:cards], DECK[cards:cards + 6]
    stock = DECK[cards + 6:]
    game = deal(" ".join(mine), " ".join(theirs), stock=" ".join(stock),
                trump=None if stock else "h", now=time.time())   # she leads: the cards lit
    table = await bot_at(game, ALICE)
    p = await open_app(phones, table.url, viewport=viewport)
    page = p.page
    hand = page.locator("#hand .card.in-hand")
    await expect(hand).to_have_count(cards)
    await expect(page.locator("#hand .card.playable")).to_have_count(cards)
    await page.wait_for_function("() => document.getAnimations().length === 0")
    for index in range(cards):
        card = hand.nth(index)
        found = await card.evaluate(f"card => ({TOUCH_AREA})([card, {FINGER}])")
        code = await card.get_attribute("data-card")
        assert found["inside"], f"{code} runs off the screen"
        assert found["at"], f"{code} has no {FINGER}×{FINGER} px to touch"


LABELS = "#seats .seat-name, #seats .seat-role, #header, #pairs .by"
CUT = f"""() => [...document.querySelectorAll('{LABELS}')]
  .filter((node) => node.scrollWidth > node.clientWidth)
  .map((node) => node.textContent)"""


@SIZES
async def test_six_seats_in_russian_read_whole_and_apart(
        bot_at: BotAt, phones: OpenPhone, viewport: dict[str, int]) -> None:
    table = await bot_at(six_players_mid_round(time.time()), ALISA)
    p = await open_app(phones, table.url, locale="ru-RU", viewport=viewport)
    page = p.page
    await expect(page.locator("#seats .seat")).to_have_count(5)
    await expect(page.locator("#pairs .pair").first).to_be_visible()
    names = await page.locator("#seats .seat-name").all_inner_texts()
    assert names == [f"🤖 {n}" for n in range(1, 6)], names
    # the trump card's holder is named in the header, shortly (R2.3: it was dealt last)
    await expect(page.locator("#header")).to_contain_text("🤖 5")
    await expect(page.locator("#header")).to_contain_text("Отбой")
    assert await page.evaluate(CUT) == []
    colours = await page.locator("#seats .seat").evaluate_all(
        "seats => seats.map((s) => getComputedStyle(s).getPropertyValue('--seat'))")
    assert len(set(colours)) == 5, (colours, p.problems, await page.evaluate(
        "() => [document.styleSheets.length, document.body.outerHTML.slice(0, 3000)]"))
    # who played each table card: his seat's colour on the card and his name under it
    pair = page.locator("#pairs .pair.beaten").first
    assert await pair.locator(".who").all_inner_texts() == ["🤖 5", "Ты"]


async def test_nothing_covers_the_result_panel(bot_at: BotAt, phones: OpenPhone) -> None:
    # Her last card, with no stock: once it is down she is out and the game over.
    game = deal("7c", "8s 9d", trump="h", now=time.time())
    table = await bot_at(game, ALICE)
    p = await open_app(phones, table.url)
    page = p.page
    await tap(page, '#hand .card[data-card="7c"]')
    await expect(page.locator("#panel .result li").first).to_be_visible()
    await page.wait_for_function("() => document.getAnimations().length === 0")
    covered = await page.locator("#panel .panel").evaluate("""(panel) => {
      const r = panel.getBoundingClientRect();
      const over = [];
      // (but its rounded corners)
      for (let y = r.top + 6; y < r.bottom - 6; y += 6)
        for (let x = r.left + 6; x < r.right - 6; x += 6) {
          const top = document.elementFromPoint(x, y);
          if (top && !panel.contains(top)) over.push(`${top.className || top.tagName} ${x},${y}`);
        }
      return over;
    }""")
    assert covered == [], covered[:10]


def led_at_her(now: float) -> Game:
    """A computer (seat 2) led 6♣ at Alice; she holds 7♣ to beat it and 9♠, which does not.
    Nobody holds another 6 or 7: nothing is thrown in meanwhile."""
    game = full_deal("7c 8h 9s Jd Qh 9c", "8s 10h Jh Kh Ah 10c", "6c 10s Js Qs Ks As",
                     bottom="6d", first_attacker=2, now=now)
    game.apply(2, attack("6c"), now)
    return game


async def point(page: Page, selector: str) -> tuple[float, float]:
    handle = await page.wait_for_function(VISIBLE_POINT, arg=selector, timeout=WAIT_MS)
    found = await handle.json_value()
    return found["x"], found["y"]


async def test_a_drag_held_across_three_updates_lands(bot_at: BotAt, phones: OpenPhone) -> None:
    table = await bot_at(led_at_her(time.time()), ALICE)
    p = await open_app(phones, table.url)
    page = p.page
    await expect(page.locator("body")).to_have_attribute("data-input", "1")
    live = table.bot.tables.live(table.table_id)
    assert live is not None
    sockets = table.bot.web_app.sockets
    cdp = await p.context.new_cdp_session(page)

    async def finger(kind: str, x: float = 0, y: float = 0) -> None:
        points = [] if kind == "touchEnd" else [{"x": x, "y": y}]
        await cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})

    async def update() -> None:
        """The server sends her the table again, and the page draws it (a new hand)."""
        before = len(p.states())
        await page.evaluate("window.handBefore = document.querySelector('#hand .card')")
        for viewer in sockets.viewers[table.table_id]:
            viewer.send(sockets.state_of(live, viewer))
        await page.wait_for_function(
            "() => document.querySelector('#hand .card') !== window.handBefore")
        assert len(p.states()) > before

    (x0, y0), (x1, y1) = await point(page, '#hand .card[data-card="7c"]'), await point(
        page, '#pairs .attack[data-target="0"]')
    await finger("touchStart", x0, y0)
    steps = 12
    for step in range(1, steps + 1):
        await finger("touchMove", x0 + (x1 - x0) * step / steps, y0 + (y1 - y0) * step / steps)
        if step in (3, 6, 9):
            await update()
            await expect(page.locator('#hand .card[data-card="7c"]')).to_have_class(LIFTED)
    await finger("touchEnd")
    await p.shown_on_table(card_label("7c"))
    moves = [f for f in p.sent if f.get("type") == "move"]
    assert [(m["move"], m["card"], m["target"]) for m in moves] == [("defend", "7c", 0)]
    answer = next(f for f in p.frames if f["type"] == "answer" and f["id"] == moves[0]["id"])
    assert answer["ok"], answer


async def test_a_refused_move_shakes_its_card_and_says_why(
        bot_at: BotAt, phones: OpenPhone) -> None:
    table = await bot_at(led_at_her(time.time()), ALICE)
    p = await open_app(phones, table.url)
    page = p.page
    await expect(page.locator("body")).to_have_attribute("data-input", "1")
    await tap(page, '#hand .card[data-card="9s"]')   # 9♠ does not beat 6♣
    await page.wait_for_function("() => document.querySelector('#hand .card.refused')")
    said = t("illegal.does_not_beat")   # the server's reason, as the chat's alert says it
    await expect(page.locator("#toast")).to_have_text(said)
    moves = [f for f in p.sent if f.get("type") == "move"]
    assert [(m["move"], m["card"], m["target"]) for m in moves] == [("defend", "9s", 0)]
    await expect(page.locator('#pairs .card[data-card="9s"]')).to_have_count(0)


# Telegram's haptics, as the page would find them in Telegram (its script is not loaded here)
HAPTICS = """window.haptics = [];
window.Telegram = {WebApp: {HapticFeedback: {
  notificationOccurred: (kind) => window.haptics.push(kind), impactOccurred: () => {}}}};"""


async def test_the_turn_clock_counts_its_last_ten_seconds_and_warns(
        bot_at: BotAt, phones: OpenPhone) -> None:
    now = time.time()
    game = full_deal("7c 8h 9s Jd Qh 9c", "8s 10h Jh Kh Ah 10c", "6c 10s Js Qs Ks As",
                     bottom="6d", first_attacker=2, now=now, turn_seconds=16.0)
    game.apply(2, attack("6c"), now)
    table = await bot_at(game, ALICE)
    p = await phones("about:blank")
    await p.context.add_init_script(HAPTICS)
    await p.page.goto(table.url)
    label = p.page.locator("#me .turn-clock .clock-label")
    await expect(p.page.locator("body")).to_have_attribute("data-input", "1")
    await expect(label).to_have_text(re.compile(r"^(10|[1-9]) s$"), timeout=WAIT_MS)
    await p.page.wait_for_function("() => window.haptics.includes('warning')")


def her_last_card_among_six(now: float) -> Game:
    """Six at the table, no stock (R2.3), Alice holding one card to lead: once her 6♣ is down
    and the round is over she is out, first, and five computers play on."""
    rest = [c for c in DECK if c != "6c"]
    hands = ["6c", " ".join(rest[:11]), *(" ".join(rest[11 + 6 * i:17 + 6 * i]) for i in range(4))]
    return deal(*hands, trump="h", now=now, bot_delay=(0.02, 0.04))


@SIZES
async def test_out_first_she_watches_the_computers_and_the_result_names_the_durak(
        tg: FakeTelegram, bot_at: BotAt, phones: OpenPhone, viewport: dict[str, int]) -> None:
    table = await bot_at(her_last_card_among_six(time.time()), ALICE)
    p = await open_app(phones, table.url, viewport=viewport)
    page = p.page
    await tap(page, '#hand .card[data-card="6c"]')
    result = page.locator("#panel .result")
    await expect(result).to_contain_text("is the durak!")
    lines = await result.locator("li").all_inner_texts()
    assert lines[-1].startswith("Places: 1. You, 2. 🤖") and "durak: 🤖" in lines[-1], lines
    assert table.bot.tables.live(table.table_id) is None, "the table ended and left memory"
    # her chat message, left alone while her app was open, shows the end too
    await tg.wait_for(lambda: any("is the durak!" in m.text for m in tg.messages(ALICE.user_id)),
                      what="the chat's result")
