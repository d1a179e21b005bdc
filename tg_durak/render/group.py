"""The group's one message: the lobby, then the public table, then the result. Pure.

Everything here is public (RULES R11.1): the table reaches this module as a `PublicTable`, which
has no hand in it, and the events it tells are moves everyone watched. The message is edited
within the group's budget, so nothing here ticks: the turn's clock is a coarse bar drawn when
the table changes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from engine import Card, Phase, PlayerView, Rules
from tg_durak.i18n.translate import Translator
from tg_durak.play.history import Told
from tg_durak.play.lobby_rules import LobbySettings
from tg_durak.play.options import LEVELS, OptionField
from tg_durak.play.rows import SeatRow
from tg_durak.render.buttons import button, marked
from tg_durak.render.callbacks import LobbyOption, LobbyTap, LobbyVerb
from tg_durak.render.game import (
    Namer,
    SeatInfo,
    header,
    result_lines,
    seat_line,
    seat_name,
    table_lines,
    told_line,
)
from tg_durak.render.options import options_rows, options_summary
from tg_durak.render.privacy import person_name
from tg_durak.render.quick_taps import NotifyTap, NotifyVerb
from tg_durak.render.screen import Button, Screen

BAR_CELLS = 4


# ---- the lobby -------------------------------------------------------------------------------

@dataclass(frozen=True)
class LobbyScreenInput:
    table_id: int
    host: str                       # the host's name ("": forgotten, or his row is gone)
    settings: LobbySettings
    seated: tuple[SeatRow, ...]
    editing: bool = False           # the settings are open on the message
    app_link: str | None = None     # opens the table in the Mini App
    in_chat: bool = True            # False: inline mode's, in a chat the bot is not in


def _lobby_text(inp: LobbyScreenInput, t: Translator) -> str:
    s = inp.settings
    lines = [t("lobby.title", host=person_name(inp.host, t)), options_summary(s.options, t), "",
             t("lobby.seats", n=len(inp.seated), seats=s.seats)]
    # Named as the game will name them: the seats keep their order at the start.
    infos = [SeatInfo(seat.name, seat.user_id is None, seat.level) for seat in inp.seated]
    lines += [f"{i}. {seat_name(infos, i - 1, t)}" for i in range(1, len(infos) + 1)]
    lines += ["", t("lobby.hint")]
    return "\n".join(lines)


def _tap(inp: LobbyScreenInput, verb: LobbyVerb, value: str = "") -> LobbyTap:
    return LobbyTap(table=inp.table_id, verb=verb, value=value)


def _seat_row(inp: LobbyScreenInput, t: Translator) -> list[Button]:
    return [button(t("btn.lobby.join"), _tap(inp, LobbyVerb.JOIN)),
            button(t("btn.lobby.leave"), _tap(inp, LobbyVerb.LEAVE))]


def _lobby_keyboard(inp: LobbyScreenInput, t: Translator) -> list[list[Button]]:
    return [
        _seat_row(inp, t),
        [button(t("btn.lobby.computer", level=t(f"level.{lv}")),
                _tap(inp, LobbyVerb.COMPUTER, lv)) for lv in LEVELS],
        [button(t("btn.setup"), _tap(inp, LobbyVerb.SETTINGS)),
         button(t("btn.start"), _tap(inp, LobbyVerb.START)),
         button(t("btn.cancel"), _tap(inp, LobbyVerb.CANCEL))],
        # /notify: the next lobby here (none in a chat the bot is not in: it would hear nothing)
        *([[button(t("btn.notify"), NotifyTap(NotifyVerb.ON))]] if inp.in_chat else []),
    ]


def _settings_keyboard(inp: LobbyScreenInput, t: Translator
                       ) -> list[list[Button]]:
    s = inp.settings

    def data(field: OptionField, value: str) -> LobbyOption:
        return LobbyOption(table=inp.table_id, field=field, value=value)

    seats = [button(marked(t("lobby.seats_button", n=n), n == s.seats),
                    _tap(inp, LobbyVerb.SEATS, str(n))) for n in range(2, s.max_seats + 1)]
    # People keep joining while the host sets the table up.
    return [_seat_row(inp, t), *options_rows(s.options, t, data), seats,
            [button(t("btn.back"), _tap(inp, LobbyVerb.BACK)),
             button(t("btn.start"), _tap(inp, LobbyVerb.START))]]


def lobby_screen(inp: LobbyScreenInput, t: Translator) -> Screen:
    """Who sits, the settings in a line, and the lobby's buttons (or its settings)."""
    rows = _settings_keyboard(inp, t) if inp.editing else _lobby_keyboard(inp, t)
    if inp.app_link:
        rows.append([Button(t("button.open_table"), url=inp.app_link)])
    return Screen(_lobby_text(inp, t), rows)


def private_note_screen(key: str, t: Translator) -> Screen:
    """A seated person's private message before the start: waiting, or what became of it."""
    return Screen(text=t(key))


def lobby_closed_screen(reason: str, t: Translator, inline_bot: str | None = None) -> Screen:
    """A lobby that will not start: `reason` is "expired" or "cancelled". In a chat the bot is
    not in (inline mode, `inline_bot`: its username) a new one is opened by typing @bot."""
    if inline_bot is not None:
        return Screen(text=t(f"inline.{reason}", bot=inline_bot))
    return Screen(text=t(f"lobby.{reason}"))


# ---- the public table ------------------------------------------------------------------------

@dataclass(frozen=True)
class PublicTable:
    """What every player and onlooker may see of a table (R11.1): never a card in a hand."""

    rules: Rules
    trump_suit: str
    trump_card: Card | None
    named_trump: Card | None
    trump_holder: int | None   # who holds the card that named trump, as all saw (R2.3, R11.1)
    stock_count: int
    discard_count: int
    hand_counts: tuple[int, ...]
    known: tuple[tuple[Card, ...], ...]   # cards all know to be in each hand (R11.1)
    table: tuple[tuple[Card, Card | None], ...]
    phase: Phase
    attacker: int
    defender: int
    active_seats: tuple[int, ...]
    finished_order: tuple[int, ...]
    throwers: tuple[int, ...]
    taking: bool
    passed: frozenset[int]
    away: frozenset[int]
    turn_due: float | None
    window_due: float | None
    is_over: bool
    durak: int | None

    @classmethod
    def of(cls, view: PlayerView) -> PublicTable:
        """The public part of any seat's view: the same whichever seat it is."""
        return cls(view.rules, view.trump_suit, view.trump_card, view.named_trump,
                   view.trump_holder,
                   view.stock_count,
                   view.discard_count, view.hand_counts, view.known, view.table,
                   view.phase,
                   view.attacker, view.defender, view.active_seats, view.finished_order,
                   view.throwers, view.taking, view.passed, view.away, view.turn_due,
                   view.window_due, view.is_over, view.durak)


@dataclass(frozen=True)
class GroupScreenInput:
    table_id: int
    public: PublicTable
    seats: tuple[SeatInfo, ...]
    played_by: tuple[int | None, ...]   # who put each attack card on the table, if known
    history: tuple[Told, ...]           # the latest moves, oldest first (all of them public)
    now: float
    closed: bool = False            # the table is over for its people
    app_link: str | None = None     # opens the table in the Mini App


def _namer(inp: GroupScreenInput, t: Translator) -> Namer:
    """Names in the third person: the group's message speaks to nobody in particular."""
    return lambda seat: seat_name(inp.seats, seat, t)


def group_turn(inp: GroupScreenInput, t: Translator) -> str:
    p, name = inp.public, _namer(inp, t)
    if p.phase == Phase.LEAD:
        return t("group.turn.leads", name=name(p.attacker))
    defender = name(p.defender)
    if p.phase == Phase.DEFEND:
        return t("group.turn.defends", name=defender)
    key = "group.turn.taking" if p.taking else "group.turn.window"
    if len(p.throwers) != 1:   # with one, a line names him, where "the others" would be wrong
        return t(key, name=defender)
    return t(f"{key}_one", name=defender, other=name(p.throwers[0]))


def _bar(inp: GroupScreenInput) -> str | None:
    """The time left as a few cells, as it stood when the table last changed."""
    p, rules = inp.public, inp.public.rules
    if p.phase == Phase.WINDOW:
        due, total = p.window_due, rules.throw_in_seconds
    else:
        due, total = p.turn_due, rules.turn_seconds
    if due is None or total <= 0:
        return None
    filled = min(BAR_CELLS, math.ceil(max(0.0, due - inp.now) / total * BAR_CELLS))
    return "⏳ " + "▰" * filled + "▱" * (BAR_CELLS - filled)


def group_screen(inp: GroupScreenInput, t: Translator) -> Screen:
    """The public table; once it is over, the durak, the places and Rematch."""
    p, name = inp.public, _namer(inp, t)
    lines = [header(p, name, t)]
    lines += [seat_line(p, seat, name(seat), t, left=info.left, closed=inp.closed)
              for seat, info in enumerate(inp.seats)]
    lines.append("")
    lines += table_lines(p, inp.played_by, name, t)
    lines.append("")
    lines += [f"<i>{told_line(told, name, t)}</i>" for told in inp.history]
    if inp.closed:
        lines += result_lines(p, name, t)
        rematch = button(t("btn.lobby.rematch"),
                         LobbyTap(table=inp.table_id, verb=LobbyVerb.REMATCH))
        return Screen("\n".join(lines), [[rematch]])
    turn = f"<b>{group_turn(inp, t)}</b>"
    bar = _bar(inp)
    lines.append(f"{turn} {bar}" if bar else turn)
    app = [[Button(t("button.open_table"), url=inp.app_link)]] if inp.app_link else None
    return Screen("\n".join(lines), app)
