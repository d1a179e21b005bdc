"""The game message one player sees: pure, (what the seat may see, language) -> Screen."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from engine import Action, ActionKind, Card, EventKind, Phase, PlayerView
from tg_durak.i18n.translate import Translator
from tg_durak.play.history import Told
from tg_durak.render.callbacks import Menu, MenuAction, Move, Verb
from tg_durak.render.cards import card_label, in_hand_order, suit_label
from tg_durak.render.privacy import person_name
from tg_durak.render.screen import Button, Keyboard, Screen

BAR_CELLS = 8
MIN_BAR_STEP = 2.0   # seconds; a bar is never redrawn more often (edits have budgets)
BAR_STEPS = 6        # redraws over a whole timer
TRANSFER_MARK = "⇄"  # before a card one may transfer with; "•" before a card one may play
ROW = 6          # card buttons per row on a phone
WIDE_ROW = 8     # Telegram's most per row, for a hand too big for six-wide rows
TARGET_ROW = 3   # "7♠️ ← A♥️" buttons a phone shows side by side


@dataclass(frozen=True)
class SeatInfo:
    name: str            # a person's name; empty for a computer player and a forgotten person
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
    app_url: str | None = None   # the Mini App, opened from a button of the game message


class PublicFacts(Protocol):
    """What the seat lines, the header, the pairs and the places read: public fields a
    PlayerView and the group's PublicTable share by name, so one renderer serves both."""

    @property
    def trump_suit(self) -> str: ...
    @property
    def trump_card(self) -> Card | None: ...
    @property
    def named_trump(self) -> Card | None: ...
    @property
    def trump_holder(self) -> int | None: ...
    @property
    def stock_count(self) -> int: ...
    @property
    def discard_count(self) -> int: ...
    @property
    def hand_counts(self) -> tuple[int, ...]: ...
    @property
    def known(self) -> tuple[tuple[Card, ...], ...]: ...
    @property
    def table(self) -> tuple[tuple[Card, Card | None], ...]: ...
    @property
    def phase(self) -> Phase: ...
    @property
    def attacker(self) -> int: ...
    @property
    def defender(self) -> int: ...
    @property
    def active_seats(self) -> tuple[int, ...]: ...
    @property
    def finished_order(self) -> tuple[int, ...]: ...
    @property
    def throwers(self) -> tuple[int, ...]: ...
    @property
    def taking(self) -> bool: ...
    @property
    def passed(self) -> frozenset[int]: ...
    @property
    def away(self) -> frozenset[int]: ...
    @property
    def is_over(self) -> bool: ...
    @property
    def durak(self) -> int | None: ...


Namer = Callable[[int], str]


def bar_step(total: float) -> float:
    """Seconds between two redraws of a timer bar of `total` seconds."""
    return max(MIN_BAR_STEP, total / BAR_STEPS)


def computer_name(n: int, level: str | None, t: Translator) -> str:
    """The n-th computer at a table (1 on), with its strength: the same in lobby and game."""
    return t("seat.computer", n=n, level=t(f"level.{level or 'normal'}"))


def seat_name(seats: Sequence[SeatInfo], seat: int, t: Translator, me: int | None = None) -> str:
    """"You" for the reader's own seat (`me`; None on the group's message, which is nobody's)."""
    if seat == me:
        return t("seat.you")
    info = seats[seat]
    if info.is_bot:
        return computer_name(sum(s.is_bot for s in seats[:seat + 1]), info.level, t)
    return person_name(info.name, t)


def _namer(inp: GameScreenInput, t: Translator) -> Namer:
    return lambda seat: seat_name(inp.seats, seat, t, inp.view.seat)


def _is_out(v: PublicFacts, seat: int) -> bool:
    """Left the game (with a draw nobody is active, and the engine then lists every seat)."""
    return seat in v.finished_order or seat not in v.active_seats


def seat_part(v: PublicFacts, seat: int, closed: bool) -> str:
    """The seat's part in the round, or "" for none: once the table is closed only "out" stays.

    The defender is looked at first: a transfer may leave the round's first attacker defending,
    and whether `attacker` then names him or the transferrer, he reads as the defender.
    """
    if _is_out(v, seat):
        return "out"
    if v.is_over or closed:
        return ""
    if seat == v.defender:
        return "taking" if v.taking else "defending"
    if v.phase == Phase.LEAD:
        return "leading" if seat == v.attacker else ""
    if seat in v.passed:
        return "passed"
    return "throwing" if seat in v.throwers else ""


def seat_role(v: PublicFacts, seat: int, t: Translator, own: bool, closed: bool,
          can_throw: bool) -> str:
    """The part and whether a computer stands in, in the second person on the own line (where
    a thrower with no card of a rank on the table reads that he has nothing to throw in)."""
    you = ".you" if own else ""
    part = seat_part(v, seat, closed)
    if part == "throwing" and own and not can_throw:
        part = "throwing_nothing"
    parts = [t(f"role.{part}{you}")] if part else []
    if seat in v.away and part != "out" and not (v.is_over or closed):
        parts.append(t("role.away" + you))
    return " · ".join(parts)


def seat_line(v: PublicFacts, seat: int, name: str, t: Translator, *, own: bool = False,
              left: bool = False, closed: bool = False, can_throw: bool = True) -> str:
    """"<b>Ann</b> · 5 cards · defending": the same on a private screen and the group's."""
    parts = [f"<b>{name}</b>"]
    if not _is_out(v, seat):
        parts.append(t.plural("game.cards", v.hand_counts[seat], n=v.hand_counts[seat]))
    role = seat_role(v, seat, t, own, closed, can_throw)
    if role:
        parts.append(role)
    if left:
        parts.append(t("role.left"))
    return " · ".join(parts)


def header(v: PublicFacts, name: Namer, t: Translator, me: int | None = None) -> str:
    """Trump, stock and discard. The card that named trump is shown under the stock, and once
    it is in a hand (drawn, or dealt when nothing was left for the stock: R2.3) with whose it
    is, as long as it stays there."""
    named, holder = v.named_trump, v.trump_holder   # a holder holds the named card
    if v.trump_card is not None:
        trump = card_label(v.trump_card, t)
    elif named is None or holder is None:
        trump = suit_label(v.trump_suit)
    elif holder == me:
        trump = t("game.trump_yours", card=card_label(named, t))
    else:
        trump = t("game.trump_held", card=card_label(named, t), name=name(holder))
    return t("game.header", trump=trump, stock=v.stock_count, discard=v.discard_count)


def table_lines(v: PublicFacts, played_by: tuple[int | None, ...], name: Namer,
                t: Translator) -> list[str]:
    """Each attack card, what beat it, and who played it (when the service knows)."""
    if not v.table:
        return [t("game.table_empty")]
    players = played_by if len(played_by) == len(v.table) else (None,) * len(v.table)
    lines = []
    for (attack, defence), seat in zip(v.table, players, strict=True):
        line = f"{card_label(attack, t)} → {card_label(defence, t) if defence else '…'}"
        lines.append(line if seat is None else f"{line}   <i>{name(seat)}</i>")
    return lines


def told_line(told: Told, name: Namer, t: Translator, me: int | None = None) -> str:
    """One event, naming who and which cards: "Bot 1 transferred with 8♣ to you".

    `me` is the reader's seat; the group's message (None) tells everything in the third person.
    """
    key = f"last.{told.kind}"
    if me is not None and told.kind != EventKind.BEATEN and told.seat == me:
        key += ".you"
    elif me is not None and told.to_seat == me:
        key += ".to_you"
    params = {
        "name": name(told.seat) if told.seat is not None else "",
        "card": card_label(told.card, t) if told.card is not None else "",
        "target": card_label(told.beat, t) if told.beat is not None else "",
        "to": name(told.to_seat) if told.to_seat is not None else "",
    }
    if told.count is not None and told.kind == EventKind.TAKEN:
        return t.plural(key, told.count, n=told.count, **params)
    return t(key, **params)


def result_lines(v: PublicFacts, name: Namer, t: Translator, me: int | None = None
                 ) -> list[str]:
    """The outcome, then the safe seats' places and the durak: "1. Bot 1, 2. Bot 2 — durak: You".

    `me` is the reader's seat; the group's message (None) names everyone in the third person.
    """
    if not v.is_over:  # every person is out; the computers' order does not matter
        headline = t("last.out.you") if me is not None else t("group.over.people_out")
    elif v.durak is None:
        headline = t("over.draw")
    elif v.durak == me:
        headline = t("over.durak_you")
    else:
        headline = t("over.durak", name=name(v.durak))
    places = ", ".join(f"{place}. {name(seat)}"
                       for place, seat in enumerate(v.finished_order, 1))
    line = t("over.places", places=places) if places else ""
    if v.is_over and v.durak is not None:
        durak = t("over.durak_named", name=name(v.durak))
        line = f"{line} — {durak}" if line else durak
    return [headline, line] if line else [headline]


def _seat_line(inp: GameScreenInput, seat: int, t: Translator) -> str:
    return seat_line(inp.view, seat, _namer(inp, t)(seat), t, own=seat == inp.view.seat,
                     left=inp.seats[seat].left, closed=inp.closed,
                     can_throw=any(a.kind == ActionKind.ATTACK for a in inp.legal))


def turn_line(inp: GameScreenInput, t: Translator) -> str:
    """What the player may do now, naming only moves he has; else what the table waits for."""
    v, me = inp.view, inp.view.seat
    if inp.choosing_card is not None:
        return t("choose.target", card=card_label(inp.choosing_card, t))
    if inp.choosing_transfer:
        return t("choose.transfer")
    if _is_out(v, me):
        return t("turn.you_are_out")
    if v.phase == Phase.LEAD:
        return t("turn.you_lead") if me == v.attacker else t(
            "turn.leads", name=_namer(inp, t)(v.attacker))
    if me == v.defender:
        return _defender_turn_line(inp, t)
    can_throw = any(a.kind == ActionKind.ATTACK for a in inp.legal)
    name = _namer(inp, t)(v.defender)
    if v.phase == Phase.DEFEND:
        return t("turn.defends_throw" if can_throw else "turn.defends", name=name)
    if can_throw:
        return t("turn.taking_throw" if v.taking else "turn.beaten_throw", name=name)
    return _waiting_on(inp, t, "turn.taking" if v.taking else "turn.wait", name=name)


def _waiting_on(inp: GameScreenInput, t: Translator, key: str, **names: str) -> str:
    """A line that waits on the throwers; with one, its ``_one`` form names him. Once nobody
    may throw in any more, its ``_none`` form says the round closes, as the timer does: the
    engine counts down the close grace (R6.3), in every seat's view."""
    v = inp.view
    if v.close_due is not None:
        return t(f"{key}_none", **names)
    others = [s for s in v.throwers if s != v.seat]
    if len(others) == 1:
        return t(f"{key}_one", other=_namer(inp, t)(others[0]), **names)
    return t(key, **names)


def _defender_turn_line(inp: GameScreenInput, t: Translator) -> str:
    if inp.view.phase == Phase.WINDOW:
        return _waiting_on(inp, t, "turn.you_take" if inp.view.taking else "turn.wait")
    kinds = {a.kind for a in inp.legal}
    can_transfer = bool(kinds & {ActionKind.TRANSFER, ActionKind.SHOW_TRUMP})
    if ActionKind.DEFEND in kinds:
        return t("turn.you_defend_transfer") if can_transfer else t("turn.you_defend")
    return t("turn.you_transfer_or_take") if can_transfer else t("turn.you_must_take")


def _timer(inp: GameScreenInput, t: Translator) -> str | None:
    """A bar for the throw-in window and for the player's own turn (R6.3, R10.2)."""
    v, me, rules = inp.view, inp.view.seat, inp.view.rules
    own_turn = ((v.phase == Phase.LEAD and me == v.attacker)
                or (v.phase == Phase.DEFEND and me == v.defender))
    if v.phase == Phase.WINDOW:
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
    if v.phase == Phase.WINDOW and due == v.close_due:   # everyone is done: the grace (R6.3)
        return f"⏳ {bar} {t('timer.closing')}"
    return f"⏳ {bar} {_seconds(left, bar_step(total), t)}"


def _seconds(left: float, step: float, t: Translator) -> str:
    """What the label may say until its next redraw, `step` from now, without ever claiming
    more time than is left: the seconds that will still be left then, and in the last stretch
    (no redraw before the end) that less than what is left now remains."""
    if left - step >= 1:
        return t("timer.seconds", s=math.floor(left - step))
    return t("timer.under", s=max(1, math.ceil(left)))


def outcome_lines(inp: GameScreenInput, t: Translator) -> list[str]:
    if inp.resigned is not None:
        return [t("over.resigned")]
    return result_lines(inp.view, _namer(inp, t), t, inp.view.seat)


def _button(text: str, inp: GameScreenInput, verb: Verb, card: Card | None = None,
            target: int = -1) -> Button:
    data = Move(table=inp.table_id, v=inp.version, verb=verb,
                card=-1 if card is None else card.index, target=target)
    return Button(text, data.pack())


def _card_label(card: Card, inp: GameScreenInput, t: Translator) -> str:
    """The card as its button reads: "•" if he may play it now (or pick it to transfer with),
    "⇄" if he may transfer with it (R9.1) without choosing Transfer first."""
    picking = inp.choosing_transfer
    kinds = {a.kind for a in inp.legal if a.card is card}
    playable = {ActionKind.TRANSFER} if picking else {ActionKind.ATTACK, ActionKind.DEFEND}
    marks = "•" if kinds & playable else ""
    if ActionKind.TRANSFER in kinds and not picking:
        marks += TRANSFER_MARK
    return marks + card_label(card, t)


def _keyboard(inp: GameScreenInput, t: Translator) -> Keyboard:
    v = inp.view
    rows: list[tuple[Button, ...]] = []
    if inp.closed:
        return ((Button(t("btn.play_again"), Menu(action=MenuAction.AGAIN).pack()),),)
    if inp.choosing_card is not None:
        card = inp.choosing_card
        targets = [_button(f"{card_label(v.table[a.target][0], t)} ← {card_label(card, t)}", inp,
                           Verb.TARGET, card, a.target)
                   for a in inp.legal
                   if a.kind == ActionKind.DEFEND and a.card is card and a.target is not None]
        rows += [tuple(targets[i:i + TARGET_ROW]) for i in range(0, len(targets), TARGET_ROW)]
        rows.append((_button(t("btn.cancel"), inp, Verb.CANCEL),))
        return tuple(rows)
    width = ROW if len(v.hand) <= 4 * ROW else WIDE_ROW
    cards = [_button(_card_label(c, inp, t), inp,
                     Verb.TRANSFER if inp.choosing_transfer else Verb.CARD, c)
             for c in in_hand_order(v.hand, v.trump_suit)]
    rows += [tuple(cards[i:i + width]) for i in range(0, len(cards), width)]
    kinds = {a.kind for a in inp.legal}
    actions = []
    if inp.choosing_transfer:
        actions.append(_button(t("btn.cancel"), inp, Verb.CANCEL))
    else:
        if ActionKind.TAKE in kinds:
            actions.append(_button(t("btn.take"), inp, Verb.TAKE))
        if ActionKind.TRANSFER in kinds:
            actions.append(_button(t("btn.transfer"), inp, Verb.TRANSFER_MODE))
        actions += [_button(t("btn.show_trump", card=card_label(a.card, t)), inp, Verb.SHOW_TRUMP,
                            a.card)
                    for a in inp.legal if a.kind == ActionKind.SHOW_TRUMP and a.card is not None]
        if ActionKind.PASS in kinds:
            actions.append(_button(t("btn.pass"), inp, Verb.PASS))
    if actions:
        rows.append(tuple(actions))
    if inp.leave:
        rows.append((Button(t("btn.leave"), Menu(action=MenuAction.LEAVE).pack()),))
    if inp.app_url:
        rows.append((Button(t("button.table"), web_app=inp.app_url),))
    return tuple(rows)


def game_screen(inp: GameScreenInput, t: Translator) -> Screen:
    v = inp.view
    name = _namer(inp, t)
    lines = [header(v, name, t, v.seat)]
    others = [s for s in range(len(inp.seats)) if s != v.seat]
    lines += [_seat_line(inp, s, t) for s in others]
    lines.append("")
    lines += table_lines(v, inp.played_by, name, t)
    lines.append("")
    lines += [f"<i>{told_line(told, name, t, v.seat)}</i>" for told in inp.last]
    if inp.closed:
        lines += outcome_lines(inp, t)
    else:
        lines.append(f"<b>{turn_line(inp, t)}</b>")
        timer = _timer(inp, t)
        if timer:
            lines.append(timer)
        lines.append(_seat_line(inp, v.seat, t))
    return Screen("\n".join(lines), _keyboard(inp, t))
