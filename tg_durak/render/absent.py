"""Screens about people who stop playing: out of the bot's reach, leaving, removed (pure)."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from tg_durak.i18n.translate import Translator
from tg_durak.play.rows import SeatRow
from tg_durak.render.buttons import button, open_bot
from tg_durak.render.callbacks import Kick, MenuAction
from tg_durak.render.menus import confirm_screen
from tg_durak.render.screen import Screen


def unreachable_screen(name: str, bot_username: str, t: Translator) -> Screen:
    """Told once in the group: the bot cannot write to him; the button opens the bot."""
    return Screen(t("group.unreachable", name=escape(name)),
                  [[open_bot(t("btn.open_private"), bot_username)]])


def leave_screen(t: Translator) -> Screen:
    """Leave, tapped on the game message: asked once more, as resigning is."""
    return confirm_screen("leave.confirm", "btn.leave_sure", MenuAction.LEAVE_SURE, t)


def kick_screen(table_id: int, away: Sequence[SeatRow], t: Translator) -> Screen:
    """/kick without a reply: the players who are away, one button each."""
    if not away:
        return Screen(t("kick.nobody_away"))
    rows = [[button(s.name, Kick(table=table_id, user=s.user_id))]
            for s in away if s.user_id is not None]   # computers are never away
    return Screen(t("kick.choose"), rows)
