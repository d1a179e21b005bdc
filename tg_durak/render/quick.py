"""Screens of quick games and of /notify: choosing the game, waiting, the report after it, a
group's next lobby (their buttons' data: render/quick_taps.py)."""

from __future__ import annotations

from dataclasses import dataclass
from html import escape

from engine import MAX_PLAYERS, Variant
from engine.rules import DECKS
from tg_durak.i18n.translate import Translator
from tg_durak.play.matching import MIN_PLAYERS, WAITS, QuickGame, ReportReason
from tg_durak.play.rows import SeatRow, Standing
from tg_durak.render.buttons import button, marked, open_bot
from tg_durak.render.menus import play_buttons
from tg_durak.render.quick_taps import NotifyTap, NotifyVerb, QuickTap, QuickVerb, ReportTap
from tg_durak.render.screen import Keyboard, Screen
from tg_durak.render.standings import leaderboard_screen


@dataclass(frozen=True)
class QuickChoice:
    """What the quick game's message has chosen so far."""

    game: QuickGame
    wait: int

    def tap(self, verb: QuickVerb, **changed: object) -> QuickTap:
        fields: dict = {"variant": self.game.variant, "players": self.game.players,
                        "deck": self.game.deck, "wait": self.wait, **changed}
        if verb is QuickVerb.CHOOSE:   # the latest choice wins: the deck gives way
            game = QuickGame.fitting(fields["variant"], fields["players"], fields["deck"])
            fields.update(variant=game.variant, players=game.players, deck=game.deck)
        return QuickTap(verb, **fields)


def game_summary(game: QuickGame, t: Translator) -> str:
    return t("quick.game", variant=t(f"variant.{game.variant}"), players=game.players,
             deck=game.deck)


def quick_setup_screen(choice: QuickChoice, t: Translator) -> Screen:
    """The game to wait for: variant, players, deck, how long before computers may fill in."""
    game = choice.game
    rows: Keyboard = (
        tuple(button(marked(t(f"variant.{v}"), v == game.variant),
                     choice.tap(QuickVerb.CHOOSE, variant=v)) for v in Variant),
        tuple(button(marked(str(n), n == game.players), choice.tap(QuickVerb.CHOOSE, players=n))
              for n in range(MIN_PLAYERS, MAX_PLAYERS + 1)),
        tuple(button(marked(str(d), d == game.deck), choice.tap(QuickVerb.CHOOSE, deck=d))
              for d in DECKS),
        tuple(button(marked(t("quick.wait_s", n=w), w == choice.wait),
                     choice.tap(QuickVerb.CHOOSE, wait=w)) for w in WAITS),
        (button(t("btn.quick_find"), choice.tap(QuickVerb.FIND)),),
    )
    return Screen(t("quick.choose", game=game_summary(game, t), wait=choice.wait), rows)


def waiting_screen(game: QuickGame, waiting: int, may_start: bool, t: Translator) -> Screen:
    """His message while he waits: how many wait for the same game, Leave, and once his wait
    is over, Start with computers."""
    rows = []
    if may_start:
        rows.append((button(t("btn.quick_start"), QuickTap(QuickVerb.START)),))
    rows.append((button(t("btn.quick_leave"), QuickTap(QuickVerb.LEAVE)),))
    lines = [t("quick.waiting", game=game_summary(game, t)),
             t("quick.waiting_count", waiting=waiting, players=game.players)]
    if may_start:
        lines.append(t("quick.may_start"))
    return Screen("\n\n".join(lines), tuple(rows))


def found_screen(game: QuickGame, t: Translator) -> Screen:
    """His waiting message once his table opened (the game is the next message)."""
    return Screen(t("quick.found", game=game_summary(game, t)))


def left_screen(t: Translator) -> Screen:
    return Screen(t("quick.left"), play_buttons(t))


def report_offer_screen(table_id: int, others: list[SeatRow], t: Translator) -> Screen:
    """After a quick game: one tap reports another player (he is not matched with you again)."""
    rows = tuple(
        (button(t("btn.report_left", name=other.name), ReportTap(table_id, other.user,
                                                                ReportReason.LEFT)),
         button(t("btn.report_name", name=other.name), ReportTap(table_id, other.user,
                                                                ReportReason.NAME)))
        for other in others)
    return Screen(t("quick.report_offer"), rows)


def quick_top_screen(standings: list[Standing], asker: int, t: Translator) -> Screen:
    """The quick games' table of players (everyone's rating from quick games' players)."""
    if not standings:
        return Screen(t("quick.top_empty"), play_buttons(t))
    # The chat's table of players, under the quick games' own title.
    lines = leaderboard_screen(standings, asker, t).text.split("\n")[1:]
    return Screen("\n".join([t("quick.top_title"), *lines]), play_buttons(t))


def lobby_notice_screen(chat_id: int, title: str, host: str, invite: str, bot_username: str,
                        t: Translator) -> Screen:
    """A subscriber's private message: a lobby opened in a group he follows; Join in one tap
    (the link's /start seats him, as a lobby's own Join link does)."""
    text = t("notify.lobby", chat=escape(title), host=escape(host))
    return Screen(text, [[open_bot(t("btn.notify_join"), bot_username, invite)],
                         [button(t("btn.notify_off"), NotifyTap(NotifyVerb.OFF, chat_id))]])
