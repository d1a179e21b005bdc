"""The game message one player sees: pure, (what the seat may see, language) -> Screen."""

from __future__ import annotations

import math
from dataclasses import dataclass
from html import escape

from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup

from engine import Action, Card, Event, PlayerView
from tg_durak.callbacks import Menu, MenuAction, Move, Verb
from tg_durak.i18n import Translator
from tg_durak.publisher import Screen
from tg_durak.render.cards import card_label, suit_label

BAR_CELLS = 8
ROW = 6          # card buttons per row on a phone
WIDE_ROW = 8     # Telegram's most per row, for a hand too big for six-wide rows
_PRIORITY = ("over", "transfer", "show_trump", "taken", "beaten", "take", "timeout", "out",
             "defend", "attack", "pass")


@dataclass(frozen=True)
class SeatInfo:
    name: str            # a person's name; empty for a computer player
    is_bot: bool
    level: str | None = None


@dataclass(frozen=True)
class GameScreenInput:
    table_id: int
    version: int
    view: PlayerView
    legal: tuple[Action, ...]
    seats: tuple[SeatInfo, ...]
    last: tuple[Event, ...]
    now: float
    choosing_card: Card | None = None
    choosing_transfer: bool = False
    resigned: int | None = None
    closed: bool = False   # the table is over for people (also before the engine's game is)


def seat_name(inp: GameScreenInput, seat: int, t: Translator) -> str:
    if seat == inp.view.seat:
        return t("seat.you")
    info = inp.seats[seat]
    return t("seat.bot", n=seat) if info.is_bot else escape(info.name)


def _role(v: PlayerView, seat: int, t: Translator) -> str:
    if seat not in v.active_seats:
        return t("role.out")
    if seat == v.defender:
        role = t("role.taking") if v.taking else t("role.defending")
    elif v.phase == "lead" and seat == v.attacker:
        role = t("role.leading")
    elif seat in v.passed:
        role = t("role.passed")
    elif seat in v.throwers and v.phase != "lead":
        role = t("role.attacking")
    else:
        role = ""
    if seat in v.away:
        role = f"{role} · {t('role.away')}" if role else t("role.away")
    return role


def _seat_line(inp: GameScreenInput, seat: int, t: Translator) -> str:
    v = inp.view
    parts = [f"<b>{seat_name(inp, seat, t)}</b>"]
    if seat in v.active_seats:
        parts.append(t.plural("game.cards", v.hand_counts[seat], n=v.hand_counts[seat]))
    role = _role(v, seat, t)
    if role:
        parts.append(role)
    return " · ".join(parts)


def _header(v: PlayerView, t: Translator) -> str:
    trump = card_label(v.trump_card) if v.trump_card is not None else suit_label(v.trump_suit)
    return t("game.header", trump=trump, stock=v.stock_count, discard=v.discard_count)


def _table_lines(v: PlayerView, t: Translator) -> list[str]:
    if not v.table:
        return [t("game.table_empty")]
    return [f"{card_label(a)} → {card_label(d) if d else '…'}" for a, d in v.table]


def _turn_line(inp: GameScreenInput, t: Translator) -> str:
    v, me = inp.view, inp.view.seat
    if inp.choosing_card is not None:
        return t("choose.target", card=card_label(inp.choosing_card))
    if inp.choosing_transfer:
        return t("choose.transfer")
    if me not in v.active_seats:
        return t("turn.you_are_out")
    if v.phase == "lead":
        return t("turn.you_lead") if me == v.attacker else t(
            "turn.leads", name=seat_name(inp, v.attacker, t))
    defender = seat_name(inp, v.defender, t)
    if v.phase == "defend":
        if me == v.defender:
            return t("turn.you_defend")
        return t("turn.defends_throw", name=defender) if me in v.throwers else t(
            "turn.defends", name=defender)
    if v.taking:
        if me == v.defender:
            return t("turn.you_take")
        return t("turn.taking_throw", name=defender) if me in v.throwers else t(
            "turn.taking", name=defender)
    if me in v.throwers and me not in v.passed:
        return t("turn.beaten_throw")
    return t("turn.wait")


def _timer(inp: GameScreenInput, t: Translator) -> str | None:
    """A bar for the throw-in window and for the player's own turn (R6.3, R10.2)."""
    v, me, rules = inp.view, inp.view.seat, inp.view.rules
    own_turn = ((v.phase == "lead" and me == v.attacker)
                or (v.phase == "defend" and me == v.defender))
    if v.phase == "window":
        due, total = v.next_deadline, rules.throw_in_seconds
    elif own_turn:
        due, total = v.turn_due, rules.turn_seconds
    else:
        return None
    if due is None:
        return None
    left = max(0.0, due - inp.now)
    filled = min(BAR_CELLS, math.ceil(left / total * BAR_CELLS)) if total > 0 else 0
    bar = "▰" * filled + "▱" * (BAR_CELLS - filled)
    return f"⏳ {bar} {t('timer.seconds', s=math.ceil(left))}"


def _last_line(inp: GameScreenInput, t: Translator) -> str | None:
    events = [e for e in inp.last if e.kind in _PRIORITY and e.kind != "over"]
    if not events:
        return None
    e = min(events, key=lambda e: _PRIORITY.index(e.kind))
    me = inp.view.seat
    you = e.seat == me
    name = seat_name(inp, e.seat, t) if e.seat is not None else ""
    card = card_label(e.card) if e.card is not None else ""
    if e.kind in ("transfer", "show_trump"):
        key = f"last.{e.kind}.you" if you else f"last.{e.kind}"
        line = t(key, name=name, card=card)
        if e.to_seat == me:
            line += " — " + t("last.you_defend")
        return line
    if e.kind == "taken":
        return t.plural("last.taken.you" if you else "last.taken", e.count, name=name, n=e.count)
    if e.kind == "beaten":
        return t("last.beaten")
    return t(f"last.{e.kind}.you" if you else f"last.{e.kind}", name=name, card=card)


def _result_lines(inp: GameScreenInput, t: Translator) -> list[str]:
    v, me = inp.view, inp.view.seat
    if inp.resigned is not None:
        return [t("over.resigned")]
    if not v.is_over:  # every person is out; the computers' order does not matter
        lines = [t("last.out.you"), t("over.ranking")]
        return lines + [f"{place}. {seat_name(inp, seat, t)}"
                        for place, seat in enumerate(v.finished_order, 1)]
    if v.durak is None:
        lines = [t("over.draw")]
    elif v.durak == me:
        lines = [t("over.durak_you")]
    else:
        lines = [t("over.durak", name=seat_name(inp, v.durak, t))]
    order = list(v.finished_order) + ([v.durak] if v.durak is not None else [])
    lines.append(t("over.ranking"))
    lines += [f"{place}. {seat_name(inp, seat, t)}" for place, seat in enumerate(order, 1)]
    return lines


def _button(text: str, inp: GameScreenInput, verb: Verb, card: Card | None = None,
            target: int = -1) -> InlineKeyboardButton:
    data = Move(table=inp.table_id, v=inp.version, verb=verb,
                card=-1 if card is None else card.index, target=target)
    return InlineKeyboardButton(text=text, callback_data=data.pack())


def _playable(inp: GameScreenInput) -> set[Card]:
    kinds = ("transfer",) if inp.choosing_transfer else ("attack", "defend")
    return {a.card for a in inp.legal if a.kind in kinds}


def _keyboard(inp: GameScreenInput, t: Translator) -> InlineKeyboardMarkup:
    v = inp.view
    rows: list[list[InlineKeyboardButton]] = []
    if inp.closed:
        again = InlineKeyboardButton(text=t("btn.play_again"),
                                     callback_data=Menu(action=MenuAction.AGAIN).pack())
        return InlineKeyboardMarkup(inline_keyboard=[[again]])
    if inp.choosing_card is not None:
        card = inp.choosing_card
        targets = [a.target for a in inp.legal if a.kind == "defend" and a.card is card]
        rows.append([_button(f"{card_label(v.table[i][0])} ← {card_label(card)}", inp, Verb.TARGET,
                             card, i) for i in targets])
        rows.append([_button(t("btn.cancel"), inp, Verb.CANCEL)])
        return InlineKeyboardMarkup(inline_keyboard=rows)
    playable = _playable(inp)
    width = ROW if len(v.hand) <= 4 * ROW else WIDE_ROW
    cards = [_button(("•" if c in playable else "") + card_label(c), inp,
                     Verb.TRANSFER if inp.choosing_transfer else Verb.CARD, c) for c in v.hand]
    rows += [cards[i:i + width] for i in range(0, len(cards), width)]
    kinds = {a.kind for a in inp.legal}
    actions = []
    if inp.choosing_transfer:
        actions.append(_button(t("btn.cancel"), inp, Verb.CANCEL))
    else:
        if "take" in kinds:
            actions.append(_button(t("btn.take"), inp, Verb.TAKE))
        if "transfer" in kinds:
            actions.append(_button(t("btn.transfer"), inp, Verb.TRANSFER_MODE))
        actions += [_button(t("btn.show_trump", card=card_label(a.card)), inp, Verb.SHOW_TRUMP,
                            a.card) for a in inp.legal if a.kind == "show_trump"]
        if "pass" in kinds:
            actions.append(_button(t("btn.pass"), inp, Verb.PASS))
    if actions:
        rows.append(actions)
    return InlineKeyboardMarkup(inline_keyboard=rows)


def game_screen(inp: GameScreenInput, t: Translator) -> Screen:
    v = inp.view
    lines = [_header(v, t)]
    others = [s for s in range(len(inp.seats)) if s != v.seat]
    lines += [_seat_line(inp, s, t) for s in others]
    lines.append("")
    lines += _table_lines(v, t)
    lines.append("")
    last = _last_line(inp, t)
    if last:
        lines.append(f"<i>{last}</i>")
    if inp.closed:
        lines += _result_lines(inp, t)
    else:
        lines.append(f"<b>{_turn_line(inp, t)}</b>")
        timer = _timer(inp, t)
        if timer:
            lines.append(timer)
        lines.append(_seat_line(inp, v.seat, t))
    return Screen(text="\n".join(lines), markup=_keyboard(inp, t))
