"""What a person does on the app's page: tap a card where it shows, tap a button, play a turn.

Taps are touches (the phone has a touchscreen), on a point of the card that is not covered by
its neighbour in the fan: where a finger would go.
"""

from __future__ import annotations

import asyncio

from playwright.async_api import Page

from tests.browser.conftest import WAIT_MS

# Where the page is, once it has settled: over, a chooser's target to tap, Transfer (a chooser
# with no target), a playable card, Take or Pass; or false (not her turn, or a move on its way).
WHAT_NOW = """() => {
  const b = document.body.dataset;
  if (b.over === '1') return 'over';
  if (b.input !== '1') return false;
  if (document.querySelector('#pairs .attack.target')) return 'target';
  const chooserMove = '#actions [data-action=transfer], #actions [data-action=show_trump]';
  if (document.querySelector('#hand .card.selected') && document.querySelector(chooserMove))
    return 'transfer';
  if (document.querySelector('#hand .card.in-hand.playable')) return 'card';
  if (document.querySelector('#actions [data-action=take], #actions [data-action=pass]'))
    return 'action';
  return false;
}"""

# After a tap: a new state, the end, a chooser opened, or the answer came back (a refusal shows
# in the toast).
AFTER_TAP = """(v) => {
  const b = document.body.dataset;
  if (b.version !== v || b.over === '1') return true;
  if (b.busy !== '0') return false;
  return Boolean(document.querySelector('#pairs .attack.target, #hand .card.selected')
                 || !document.getElementById('toast').hidden);
}"""

# A point of the first element matching the selector that is on top there (a fanned card is
# partly under the next one); found and measured in one go, as the page redraws on every state.
VISIBLE_POINT = """(selector) => {
  const el = document.querySelector(selector);
  if (!el) return null;
  const r = el.getBoundingClientRect();
  for (const fy of [0.5, 0.3, 0.7, 0.15, 0.85]) {
    for (const fx of [0.5, 0.3, 0.15, 0.08, 0.7, 0.85]) {
      const x = r.left + r.width * fx, y = r.top + r.height * fy;
      const top = document.elementFromPoint(x, y);
      if (top && (top === el || el.contains(top))) return {x, y, card: el.dataset.card ?? null};
    }
  }
  return null;
}"""


async def tap(page: Page, selector: str) -> str | None:
    """A finger on the visible part of the first element `selector` matches (waiting for one);
    returns its card, if it is one."""
    handle = await page.wait_for_function(VISIBLE_POINT, arg=selector, timeout=WAIT_MS)
    point = await handle.json_value()
    await page.touchscreen.tap(point["x"], point["y"])
    return point["card"]


async def what_now(page: Page) -> str:
    handle = await page.wait_for_function(WHAT_NOW, timeout=WAIT_MS)
    return await handle.json_value()


async def play_one(page: Page) -> tuple[str, str | None]:
    """One tap of the turn that is hers now (the page said so): a chooser's first target, the
    chooser's Transfer, the first playable card, else Take or Pass. Returns what was tapped
    ("over" when there is nothing to tap) and the card from her hand it played or chose, once
    the page has taken the tap in."""
    now = await what_now(page)
    if now == "over":
        return now, None
    version = await page.evaluate("document.body.dataset.version")
    card = None
    if now in ("target", "transfer"):
        card = await page.evaluate(
            "document.querySelector('#hand .card.selected')?.dataset.card ?? null")
        await tap(page, "#pairs .attack.target" if now == "target" else
                  "#actions [data-action=transfer], #actions [data-action=show_trump]")
    elif now == "card":
        card = await tap(page, "#hand .card.in-hand.playable")
    else:
        await tap(page, "#actions [data-action=take], #actions [data-action=pass]")
    await page.wait_for_function(AFTER_TAP, arg=version, timeout=WAIT_MS)
    return now, card

async def next_mover(pages: list[Page]) -> Page:
    """The page (of several at one table) that has a move to make first; the end counts."""
    waits = {asyncio.ensure_future(what_now(page)): page for page in pages}
    done, pending = await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
    for task in pending:
        task.cancel()
    await asyncio.gather(*pending, return_exceptions=True)
    return waits[next(iter(done))]


def card_label(page_frame_card: str) -> str:
    """The accessible name the page gives a card code in English ("10h" -> "10♥")."""
    return page_frame_card[:-1] + SUITS[page_frame_card[-1]]


SUITS = {"s": "♠", "h": "♥", "d": "♦", "c": "♣"}
