"""The game message one player sees: pure, (what the seat may see, language) -> Screen."""

from __future__ import annotations

import math
from dataclasses import dataclass
from html import escape

from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup

from engine import Action, Card, EventKind, PlayerView
from tg_durak.callbacks import Menu, MenuAction, Move, Verb
from tg_durak.history import Told
from tg_durak.i18n import Translator
from tg_durak.publisher import Screen
from tg_durak.render.cards import card_label, in_hand_order, suit_label

BAR_CELLS = 8
ROW = 6          # card buttons per row on a phone
WIDE_ROW = 8     # Telegram's most per row, for a hand too big for six-wide rows
TARGET_ROW = 3   # "7♠️ ← A♥️" buttons a phone shows side by side


@dataclass(frozen=True)
class SeatInfo:
    name: str            # a person's name; empty for a computer player
    is_bot: bool
    level: str | None = None
    left: bool = False   # the person left or was removed: a computer plays the seat on


@dataclass(frozen=True)
class GameScreenInput:
    table_id: int
    version: int
    view: PlayerView
    legal: tuple[Action, ...]
    seats: tuple[SeatInfo, ...]
    last: tuple[Told, ...]   # the latest events worth telling, oldest first
    now: float
    choosing_card: Card | None = None
    choosing_transfer: bool = False
    resigned: int | None = None
    closed: bool = False   # the table is over for people (also before the engine's game is)
    played_by: tuple[int | None, ...] = ()  # who played each attack card on the table, if known
    leave: bool = False    # a group table: the player may hand his seat to a computer


def seat_name(inp: GameScreenInput, seat: int, t: Translator) -> str:
    if seat == inp.view.seat:
        return t("seat.you")
    info = inp.seats[seat]
    return t("seat.bot", n=seat) if info.is_bot else escape(info.name)


def _is_out(v: PlayerView, seat: int) -> bool:
    """Left the game (with a draw nobody is active, and the engine then lists every seat)."""
    return seat in v.finished_order or seat not in v.active_seats


def _part(v: PlayerView, seat: int) -> str:
    """The seat's part in the round, or "" for none.

    The defender is looked at first: a transfer may leave the round's first attacker defending,
    and whether `attacker` then names him or the transferrer, he reads as the defender.
    """
    if _is_out(v, seat):
        return "out"
    if v.is_over:
        return ""
    if seat == v.defender:
        return "taking" if v.taking else "defending"
    if v.phase == "lead":
        return "leading" if seat == v.attacker else ""
    if seat in v.passed:
        return "passed"
    return "throwing" if seat in v.throwers else ""


def _role(v: PlayerView, seat: int, t: Translator) -> str:
    """The part and whether a computer stands in, in the second person on the own line."""
    own = ".you" if seat == v.seat else ""
    part = _part(v, seat)
    parts = [t(f"role.{part}{own}")] if part else []
    if seat in v.away and part != "out":
        parts.append(t("role.away" + own))
    return " · ".join(parts)


def _seat_line(inp: GameScreenInput, seat: int, t: Translator) -> str:
    v = inp.view
    parts = [f"<b>{seat_name(inp, seat, t)}</b>"]
    if not _is_out(v, seat):
        parts.append(t.plural("game.cards", v.hand_counts[seat], n=v.hand_counts[seat]))
    role = _role(v, seat, t)
    if role:
        parts.append(role)
    if inp.seats[seat].left:
        parts.append(t("role.left"))
    return " · ".join(parts)


def _header(v: PlayerView, t: Translator) -> str:
    trump = (card_label(v.trump_card, t) if v.trump_card is not None
             else suit_label(v.trump_suit))
    return t("game.header", trump=trump, stock=v.stock_count, discard=v.discard_count)


def _table_lines(inp: GameScreenInput, t: Translator) -> list[str]:
    """Each attack card, what beat it, and who played it (when the service knows)."""
    table = inp.view.table
    if not table:
        return [t("game.table_empty")]
    players = inp.played_by if len(inp.played_by) == len(table) else (None,) * len(table)
    lines = []
    for (attack, defence), seat in zip(table, players, strict=True):
        line = f"{card_label(attack, t)} → {card_label(defence, t) if defence else '…'}"
        lines.append(line if seat is None else f"{line}   <i>{seat_name(inp, seat, t)}</i>")
    return lines


def _told_line(told: Told, inp: GameScreenInput, t: Translator) -> str:
    """One event, naming who and which cards: "Bot 1 transferred with 8♣ to you"."""
    me = inp.view.seat
    key = f"last.{told.kind}"
    if told.kind != EventKind.BEATEN and told.seat == me:
        key += ".you"
    elif told.to_seat == me:
        key += ".to_you"
    params = {
        "name": seat_name(inp, told.seat, t) if told.seat is not None else "",
        "card": card_label(told.card, t) if told.card is not None else "",
        "target": card_label(told.beat, t) if told.beat is not None else "",
        "to": seat_name(inp, told.to_seat, t) if told.to_seat is not None else "",
    }
    if told.count is not None and told.kind == EventKind.TAKEN:
        return t.plural(key, told.count, n=told.count, **params)
    return t(key, **params)


def _turn_line(inp: GameScreenInput, t: Translator) -> str:
    """What the player may do now, naming only moves he has; else what the table waits for."""
    v, me = inp.view, inp.view.seat
    if inp.choosing_card is not None:
        return t("choose.target", card=card_label(inp.choosing_card, t))
    if inp.choosing_transfer:
        return t("choose.transfer")
    if _is_out(v, me):
        return t("turn.you_are_out")
    if v.phase == "lead":
        return t("turn.you_lead") if me == v.attacker else t(
            "turn.leads", name=seat_name(inp, v.attacker, t))
    if me == v.defender:
        return _defender_turn_line(inp, t)
    can_throw = any(a.kind == "attack" for a in inp.legal)
    if v.phase == "defend":
        key = "turn.defends_throw" if can_throw else "turn.defends"
    elif v.taking:
        key = "turn.taking_throw" if can_throw else "turn.taking"
    else:
        key = "turn.beaten_throw" if can_throw else "turn.wait"
    return t(key, name=seat_name(inp, v.defender, t))


def _defender_turn_line(inp: GameScreenInput, t: Translator) -> str:
    if inp.view.phase == "window":
        return t("turn.you_take") if inp.view.taking else t("turn.wait")
    kinds = {a.kind for a in inp.legal}
    can_transfer = bool(kinds & {"transfer", "show_trump"})
    if "defend" in kinds:
        return t("turn.you_defend_transfer") if can_transfer else t("turn.you_defend")
    return t("turn.you_transfer_or_take") if can_transfer else t("turn.you_must_take")


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


def _result_lines(inp: GameScreenInput, t: Translator) -> list[str]:
    """The outcome, then everyone's place and the durak: "1. Bot 1, 2. Bot 2 — durak: You"."""
    v, me = inp.view, inp.view.seat
    if inp.resigned is not None:
        return [t("over.resigned")]
    if not v.is_over:  # every person is out; the computers' order does not matter
        headline = t("last.out.you")
    elif v.durak is None:
        headline = t("over.draw")
    elif v.durak == me:
        headline = t("over.durak_you")
    else:
        headline = t("over.durak", name=seat_name(inp, v.durak, t))
    places = ", ".join(f"{place}. {seat_name(inp, seat, t)}"
                       for place, seat in enumerate(v.finished_order, 1))
    line = t("over.places", places=places) if places else ""
    if v.is_over and v.durak is not None:
        durak = t("over.durak_named", name=seat_name(inp, v.durak, t))
        line = f"{line} — {durak}" if line else durak
    return [headline, line] if line else [headline]


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
        targets = [_button(f"{card_label(v.table[a.target][0], t)} ← {card_label(card, t)}", inp,
                           Verb.TARGET, card, a.target)
                   for a in inp.legal if a.kind == "defend" and a.card is card]
        rows += [targets[i:i + TARGET_ROW] for i in range(0, len(targets), TARGET_ROW)]
        rows.append([_button(t("btn.cancel"), inp, Verb.CANCEL)])
        return InlineKeyboardMarkup(inline_keyboard=rows)
    playable = _playable(inp)
    width = ROW if len(v.hand) <= 4 * ROW else WIDE_ROW
    cards = [_button(("•" if c in playable else "") + card_label(c, t), inp,
                     Verb.TRANSFER if inp.choosing_transfer else Verb.CARD, c)
             for c in in_hand_order(v.hand, v.trump_suit)]
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
        actions += [_button(t("btn.show_trump", card=card_label(a.card, t)), inp, Verb.SHOW_TRUMP,
                            a.card) for a in inp.legal if a.kind == "show_trump"]
        if "pass" in kinds:
            actions.append(_button(t("btn.pass"), inp, Verb.PASS))
    if actions:
        rows.append(actions)
    if inp.leave:
        rows.append([InlineKeyboardButton(text=t("btn.leave"),
                                          callback_data=Menu(action=MenuAction.LEAVE).pack())])
    return InlineKeyboardMarkup(inline_keyboard=rows)


def game_screen(inp: GameScreenInput, t: Translator) -> Screen:
    v = inp.view
    lines = [_header(v, t)]
    others = [s for s in range(len(inp.seats)) if s != v.seat]
    lines += [_seat_line(inp, s, t) for s in others]
    lines.append("")
    lines += _table_lines(inp, t)
    lines.append("")
    lines += [f"<i>{_told_line(told, inp, t)}</i>" for told in inp.last]
    if inp.closed:
        lines += _result_lines(inp, t)
    else:
        lines.append(f"<b>{_turn_line(inp, t)}</b>")
        timer = _timer(inp, t)
        if timer:
            lines.append(timer)
        lines.append(_seat_line(inp, v.seat, t))
    return Screen(text="\n".join(lines), markup=_keyboard(inp, t))
