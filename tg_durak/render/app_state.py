"""What the Mini App shows, as the state frame it is sent (docs/mini-app.md). Pure.

The same inputs as the chat's screens, so the app and the chat tell one table alike: a seat's
state from its `GameScreenInput` (its hand and moves, R11: that seat's only), a spectator's from
the group's `GroupScreenInput` (nothing but public facts), a lobby's from `LobbyScreenInput`,
and the app with no table (the quick game with people) from the chat's quick-game choice.
Texts are the chat's, as plain text; cards are codes like "10h" that the page draws. Where room
is short (the seats, the header, the last moves) a seat goes by its short name: "🤖 2", a
person's first name.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from html import unescape
from typing import Protocol

from engine import Action, ActionKind, Card, Rules
from engine.cards import RANK_NAMES, SUIT_LETTERS, SUITS
from tg_durak.i18n.translate import Translator
from tg_durak.play.matching import QueuePlace
from tg_durak.play.taps import APP_MOVES
from tg_durak.render.cards import RANK_KEYS, in_hand_order
from tg_durak.render.game import (
    GameScreenInput,
    Namer,
    PublicFacts,
    SeatInfo,
    header,
    outcome_lines,
    result_lines,
    seat_name,
    seat_part,
    seat_role,
    told_line,
    turn_line,
)
from tg_durak.render.group import GroupScreenInput, LobbyScreenInput, group_turn
from tg_durak.render.options import options_summary
from tg_durak.render.privacy import person_name
from tg_durak.render.quick import QuickChoice, choice_options, waiting_buttons, waiting_lines
from tg_durak.render.quick_taps import QuickTap, QuickVerb

_TAG = re.compile(r"<[^<>]*>")
LAST_EVENTS = 5
# The quick game's rows of options, as choice_options gives them, and their labels.
QUICK_LABELS = ("quick.row_game", "quick.row_players", "quick.row_deck", "quick.row_wait")


class ClockedFacts(PublicFacts, Protocol):
    """The public facts and what the bars are drawn from: a PlayerView and a PublicTable both."""

    @property
    def rules(self) -> Rules: ...
    @property
    def turn_due(self) -> float | None: ...


def plain(text: str) -> str:
    """A chat text (Telegram HTML) as the page shows it: the page sets text, never markup."""
    return unescape(_TAG.sub("", text))


def code(card: Card) -> str:
    return RANK_NAMES.get(card.rank, str(card.rank)) + SUIT_LETTERS[card.suit_index]


def rank_letters(t: Translator) -> dict[str, str]:
    """The letters a player of this language reads on J, Q, K and A (В Д К Т in Russian)."""
    return {str(rank): t(key) for rank, key in RANK_KEYS.items()}


def short_namer(seats: Sequence[SeatInfo], t: Translator, me: int | None = None) -> Namer:
    """Names that fit a sixth of a phone's width, as chat text (HTML, as `seat_name` gives):
    "You", "🤖 2" for the second computer (its strength is the seat's mark, `level`), a person's
    first name, or his whole name when another person's begins alike."""
    firsts = [(info.name.split() or [info.name])[0] for info in seats]
    people = [first for first, info in zip(firsts, seats, strict=True) if not info.is_bot]

    def name(seat: int) -> str:
        info = seats[seat]
        if seat == me:
            return t("seat.you")
        if info.is_bot:
            return t("app.computer_short", n=sum(s.is_bot for s in seats[:seat + 1]))
        return person_name(info.name if people.count(firsts[seat]) > 1 else firsts[seat], t)
    return name


def _move(action: Action) -> dict:
    move: dict = {"move": action.kind}
    if action.card is not None:
        move["card"] = code(action.card)
    if action.target is not None:
        move["target"] = action.target
    return move


def _offered(legal: Sequence[Action]) -> list[dict]:
    """The moves the page can send back (play/taps.py's APP_MOVES). Pass only beside a card to
    throw in: without one the round goes on without him (R6.3), and Pass would only ask him to
    say what the table already knows."""
    throws = any(a.kind == ActionKind.ATTACK for a in legal)
    return [_move(a) for a in legal
            if a.kind in APP_MOVES and (a.kind != ActionKind.PASS or throws)]


def _ms(seconds: float | None) -> int | None:
    return None if seconds is None else round(seconds * 1000)


def _clock(v: ClockedFacts, now: float, window_due: float | None, closing: bool) -> dict:
    """The deadlines the page draws its clocks from (R6.3, R10.2): nothing is sent for a bar.
    `total` is the whole span the deadline ends: the turn, the throw-in window, or its close
    grace once nobody is left to throw in."""
    rules = v.rules
    turn = window = None
    if v.turn_due is not None and not v.is_over:
        seat = v.defender if v.table else v.attacker
        turn = {"due": _ms(v.turn_due), "total": _ms(rules.turn_seconds), "seat": seat}
    if v.phase == "window" and window_due is not None:
        span = rules.close_grace_seconds if closing else rules.throw_in_seconds
        window = {"due": _ms(window_due), "total": _ms(span), "closing": closing}
    return {"now": _ms(now), "turn": turn, "window": window}


def _seats(v: PublicFacts, infos: tuple[SeatInfo, ...], name: Namer, short: Namer,
           t: Translator, me: int | None, closed: bool, app_closed: Collection[int],
           can_throw: bool) -> list[dict]:
    """Each seat as all see it; the reader's own role says, as in the chat, when he has nothing
    to throw in (`can_throw`)."""
    return [{
        "seat": seat, "name": plain(name(seat)), "short": plain(short(seat)), "bot": info.is_bot,
        "level": info.level if info.is_bot else None,
        "level_text": t(f"level.{info.level or 'normal'}") if info.is_bot else None,
        "cards": v.hand_counts[seat],
        "cards_text": plain(t.plural("game.cards", v.hand_counts[seat], n=v.hand_counts[seat])),
        "role": seat_part(v, seat, closed),
        "role_text": seat_role(v, seat, t, seat == me, closed, can_throw),
        "away": seat in v.away, "app_closed": seat in app_closed, "left": info.left,
        "known": [code(c) for c in v.known[seat]],
    } for seat, info in enumerate(infos)]


def _table(v: PublicFacts, played_by: tuple[int | None, ...]) -> list[dict]:
    """Each attack card, its defence, who played the one (when known) and who beat it: the
    defender (a round's defences are all his: a transfer comes before any)."""
    players = played_by if len(played_by) == len(v.table) else (None,) * len(v.table)
    return [{"attack": code(a), "defence": None if d is None else code(d), "by": by,
             "beaten_by": None if d is None else v.defender}
            for (a, d), by in zip(v.table, players, strict=True)]


def _common(v: ClockedFacts, *, table_id: int, version: int, kind: str, view: str,
            me: int | None, infos: tuple[SeatInfo, ...], name: Namer, short: Namer,
            t: Translator, played_by: tuple[int | None, ...], closed: bool,
            app_closed: Collection[int], can_throw: bool = True) -> dict:
    # Play again or Rematch for those who played: an onlooker hosting a rematch would host a
    # lobby he does not sit in.
    again = ("again" if kind == "private" else "rematch") if closed and view == "seat" else None
    return {
        "type": "state", "table": table_id, "version": version, "kind": kind, "view": view,
        "me": me, "variant": str(v.rules.variant),
        "trump": {"suit": SUIT_LETTERS[SUITS.index(v.trump_suit)],
                  "card": None if v.trump_card is None else code(v.trump_card),
                  "holder": v.trump_holder},
        "stock": v.stock_count, "discard": v.discard_count,
        "seats": _seats(v, infos, name, short, t, me, closed, app_closed, can_throw),
        "pairs": _table(v, played_by),
        "over": closed, "again": again, "lobby": None,
    }


def seat_state(inp: GameScreenInput, t: Translator, *, kind: str,
               app_closed: Collection[int] = ()) -> dict:
    """A player's own seat: his hand and legal moves, and what everyone sees."""
    v, me = inp.view, inp.view.seat

    def name(seat: int) -> str:
        return seat_name(inp.seats, seat, t, me)

    short = short_namer(inp.seats, t, me)
    state = _common(v, table_id=inp.table_id, version=inp.version, kind=kind, view="seat",
                    me=me, infos=inp.seats, name=name, short=short, t=t,
                    played_by=inp.played_by, closed=inp.closed, app_closed=app_closed,
                    can_throw=any(a.kind == ActionKind.ATTACK for a in inp.legal))
    due = v.next_deadline
    state.update(
        hand=[code(c) for c in in_hand_order(v.hand, v.trump_suit)],
        legal=[] if inp.closed else _offered(inp.legal),
        clock=_clock(v, inp.now, due if v.phase == "window" else None,
                     due is not None and due == v.close_due),
        text={"header": plain(header(v, short, t, me)),
              "turn": "" if inp.closed else plain(turn_line(inp, t)),
              "last": [plain(told_line(x, short, t, me)) for x in inp.last[-LAST_EVENTS:]],
              "result": [plain(line) for line in outcome_lines(inp, t)] if inp.closed else []},
    )
    return state


def spectator_state(inp: GroupScreenInput, t: Translator, *, version: int,
                    app_closed: Collection[int] = ()) -> dict:
    """Someone not seated: the public table only (R11.1), as the group's message tells it."""
    p = inp.public

    def name(seat: int) -> str:
        return seat_name(inp.seats, seat, t)

    short = short_namer(inp.seats, t)
    state = _common(p, table_id=inp.table_id, version=version, kind="group",
                    view="spectator", me=None, infos=inp.seats, name=name, short=short, t=t,
                    played_by=inp.played_by, closed=inp.closed, app_closed=app_closed)
    result = [plain(line) for line in result_lines(p, name, t)] if inp.closed else []
    state.update(
        hand=[], legal=[], clock=_clock(p, inp.now, p.window_due, False),
        text={"header": plain(header(p, short, t)),
              "turn": "" if inp.closed else plain(group_turn(inp, t)),
              "last": [plain(told_line(x, short, t)) for x in inp.history[-LAST_EVENTS:]],
              "result": result},
    )
    return state


def lobby_state(inp: LobbyScreenInput, t: Translator, *, user_id: int, may_join: bool,
                may_start: bool = False) -> dict:
    """A group's open lobby: who sits, the table's options, Join for someone who may sit down
    and Start for its host (`may_start`; the table service says when too few sit)."""
    infos = tuple(SeatInfo(s.name, s.user_id is None, s.level) for s in inp.seated)
    joined = any(s.user_id == user_id for s in inp.seated)
    return {
        "type": "state", "table": inp.table_id, "version": 0, "kind": "group", "view": "lobby",
        "me": None, "variant": "", "trump": None, "stock": 0, "discard": 0,
        "seats": [{"seat": i, "name": plain(seat_name(infos, i, t)), "bot": info.is_bot}
                  for i, info in enumerate(infos)],
        "hand": [], "pairs": [], "legal": [], "clock": None,
        "text": {"header": "", "turn": "", "last": [], "result": []},
        "over": False, "again": None,
        "lobby": {"seats": [plain(seat_name(infos, i, t)) for i in range(len(infos))],
                  "joined": joined, "can_join": may_join and not joined, "can_start": may_start,
                  "options": plain(options_summary(inp.settings.options, t)),
                  "max": inp.settings.seats},
    }


def quick_frame_fields(tap: QuickTap) -> dict:
    """What the page's `quick` frame carries to make this tap (webapp/frames.py reads it)."""
    return {"verb": tap.verb.value, "variant": tap.variant.value, "players": tap.players,
            "deck": tap.deck, "wait": tap.wait}


def quick_state(choice: QuickChoice, place: QueuePlace | None, t: Translator,
                now: float) -> dict:
    """The app with no table: the quick game with people. While he waits (`place`), what he
    reads of the queue, the clock of his wait (its text's {s} left for the page to fill) and
    his buttons; else the choice, each option with the frame that chooses it (the latest
    choice wins, as in the chat's choice), and Find players."""
    def button(text: str, tap: QuickTap, look: str) -> dict:
        return {"text": text, "tap": quick_frame_fields(tap), "look": look}

    rows = [{"label": t(label), "options": [{"text": o.text, "chosen": o.chosen,
                                             "tap": quick_frame_fields(o.tap)} for o in row]}
            for label, row in zip(QUICK_LABELS, choice_options(choice, t), strict=True)]
    waiting = None if place is None else {
        "lines": [plain(line) for line in waiting_lines(place, t)],
        "buttons": [button(text, tap, "quiet" if tap.verb == QuickVerb.LEAVE else "primary")
                    for text, tap in waiting_buttons(place, t)],
        "may_start": place.may_start, "count": place.waiting, "players": place.game.players,
        "wait": None if place.may_start else {
            "due": _ms(place.wait_until), "total": _ms(place.wait_until - place.joined_at),
            "text": t.unfilled("quick.computers_in")},
    }
    return {
        "type": "state", "table": None, "version": 0, "view": "home",
        "clock": {"now": _ms(now)},
        "text": {"title": t("quick.title"), "intro": t("quick.intro", wait=choice.wait)},
        "quick": {"rows": rows, "find": button(t("btn.quick_find"), choice.tap(QuickVerb.FIND),
                                              "primary"),
                  "waiting": waiting},
    }
