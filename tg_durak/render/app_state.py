"""What the Mini App shows, as the state frame it is sent (docs/mini-app.md). Pure.

The same inputs as the chat's screens, so the app and the chat tell one table alike: a seat's
state from its `GameScreenInput` (its hand and moves, R11: that seat's only), a spectator's from
the group's `GroupScreenInput` (nothing but public facts), a lobby's from `LobbyScreenInput`.
Texts are the chat's, as plain text; cards are codes like "10h" that the page draws.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from html import unescape
from typing import Protocol

from engine import Action, Card, Rules
from engine.cards import RANK_NAMES, SUIT_LETTERS, SUITS
from tg_durak.i18n.translate import Translator
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

_TAG = re.compile(r"<[^<>]*>")
LAST_EVENTS = 5


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


def _move(action: Action) -> dict:
    move: dict = {"move": action.kind}
    if action.card is not None:
        move["card"] = code(action.card)
    if action.target is not None:
        move["target"] = action.target
    return move


def _ms(seconds: float | None) -> int | None:
    return None if seconds is None else round(seconds * 1000)


def _clock(v: ClockedFacts, now: float, window_due: float | None, closing: bool) -> dict:
    """The deadlines the page draws its bars from (R6.3, R10.2): nothing is sent for a bar."""
    rules = v.rules
    turn = window = None
    if v.turn_due is not None and not v.is_over:
        seat = v.defender if v.table else v.attacker
        turn = {"due": _ms(v.turn_due), "total": _ms(rules.turn_seconds), "seat": seat}
    if v.phase == "window" and window_due is not None:
        window = {"due": _ms(window_due), "total": _ms(rules.throw_in_seconds),
                  "closing": closing}
    return {"now": _ms(now), "turn": turn, "window": window}


def _seats(v: PublicFacts, infos: tuple[SeatInfo, ...], name: Namer, t: Translator,
           me: int | None, closed: bool, app_closed: Collection[int], can_throw: bool
           ) -> list[dict]:
    """Each seat as all see it; the reader's own role says, as in the chat, when he has nothing
    to throw in (`can_throw`)."""
    return [{
        "seat": seat, "name": plain(name(seat)), "bot": info.is_bot,
        "cards": v.hand_counts[seat],
        "cards_text": plain(t.plural("game.cards", v.hand_counts[seat], n=v.hand_counts[seat])),
        "role": seat_part(v, seat, closed),
        "role_text": seat_role(v, seat, t, seat == me, closed, can_throw),
        "away": seat in v.away, "app_closed": seat in app_closed, "left": info.left,
        "known": [code(c) for c in v.known[seat]],
    } for seat, info in enumerate(infos)]


def _table(v: PublicFacts, played_by: tuple[int | None, ...]) -> list[dict]:
    players = played_by if len(played_by) == len(v.table) else (None,) * len(v.table)
    return [{"attack": code(a), "defence": None if d is None else code(d), "by": by}
            for (a, d), by in zip(v.table, players, strict=True)]


def _common(v: ClockedFacts, *, table_id: int, version: int, kind: str, view: str,
            me: int | None, infos: tuple[SeatInfo, ...], name: Namer, t: Translator,
            played_by: tuple[int | None, ...], now: float, closed: bool,
            app_closed: Collection[int], can_throw: bool = True) -> dict:
    return {
        "type": "state", "table": table_id, "version": version, "kind": kind, "view": view,
        "me": me, "variant": str(v.rules.variant),
        "trump": {"suit": SUIT_LETTERS[SUITS.index(v.trump_suit)],
                  "card": None if v.trump_card is None else code(v.trump_card),
                  "holder": v.trump_holder},
        "stock": v.stock_count, "discard": v.discard_count,
        "seats": _seats(v, infos, name, t, me, closed, app_closed, can_throw),
        "pairs": _table(v, played_by),
        "over": closed, "again": ("again" if kind == "private" else "rematch") if closed else None,
        "lobby": None,
    }


def seat_state(inp: GameScreenInput, t: Translator, *, kind: str,
               app_closed: Collection[int] = ()) -> dict:
    """A player's own seat: his hand and legal moves, and what everyone sees."""
    v, me = inp.view, inp.view.seat

    def name(seat: int) -> str:
        return seat_name(inp.seats, seat, t, me)

    state = _common(v, table_id=inp.table_id, version=inp.version, kind=kind, view="seat",
                    me=me, infos=inp.seats, name=name, t=t, played_by=inp.played_by,
                    now=inp.now, closed=inp.closed, app_closed=app_closed,
                    can_throw=any(a.kind == "attack" for a in inp.legal))
    due = v.next_deadline
    state.update(
        hand=[code(c) for c in in_hand_order(v.hand, v.trump_suit)],
        # only the moves the page can send back (play/taps.py's APP_MOVES)
        legal=[] if inp.closed else [_move(a) for a in inp.legal if a.kind in APP_MOVES],
        clock=_clock(v, inp.now, due if v.phase == "window" else None,
                     due is not None and due == v.close_due),
        text={"header": plain(header(v, name, t, me)),
              "turn": "" if inp.closed else plain(turn_line(inp, t)),
              "last": [plain(told_line(x, name, t, me)) for x in inp.last[-LAST_EVENTS:]],
              "result": [plain(line) for line in outcome_lines(inp, t)] if inp.closed else []},
    )
    return state


def spectator_state(inp: GroupScreenInput, t: Translator, *, version: int,
                    app_closed: Collection[int] = ()) -> dict:
    """Someone not seated: the public table only (R11.1), as the group's message tells it."""
    p = inp.public

    def name(seat: int) -> str:
        return seat_name(inp.seats, seat, t)

    state = _common(p, table_id=inp.table_id, version=version, kind="group",
                    view="spectator", me=None, infos=inp.seats, name=name, t=t,
                    played_by=inp.played_by, now=inp.now, closed=inp.closed,
                    app_closed=app_closed)
    result = [plain(line) for line in result_lines(p, name, t)] if inp.closed else []
    state.update(
        hand=[], legal=[], clock=_clock(p, inp.now, p.window_due, False),
        text={"header": plain(header(p, name, t)),
              "turn": "" if inp.closed else plain(group_turn(inp, t)),
              "last": [plain(told_line(x, name, t)) for x in inp.history[-LAST_EVENTS:]],
              "result": result},
    )
    return state


def lobby_state(inp: LobbyScreenInput, t: Translator, *, user_id: int, may_join: bool) -> dict:
    """A group's open lobby: who sits, and Join for someone who may sit down."""
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
                  "joined": joined, "can_join": may_join and not joined,
                  "max": inp.settings.seats},
    }
