"""Screens of quick games and of /notify: choosing the game, waiting, the report after it, a
group's next lobby (their buttons' data: render/quick_taps.py)."""

from __future__ import annotations

from dataclasses import dataclass
from html import escape

from engine import MAX_PLAYERS, Variant
from engine.rules import DECKS
from tg_durak.i18n.translate import Translator
from tg_durak.play.matching import (
    DEFAULT_WAIT,
    MIN_PLAYERS,
    WAITS,
    QueuePlace,
    QuickGame,
    ReportReason,
)
from tg_durak.play.options import PlaySettings
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

    @classmethod
    def preferred(cls, settings: PlaySettings) -> QuickChoice:
        """What a person is first offered: his last settings' game, players and deck."""
        options = settings.options
        return cls(QuickGame.fitting(options.variant, settings.players, options.deck),
                   DEFAULT_WAIT)

    @classmethod
    def of(cls, tap: QuickTap) -> QuickChoice | None:
        """The choice a tap carries, if its game is one the rules allow and its wait one
        offered (anything else is forged)."""
        try:
            game = QuickGame(tap.variant, tap.players, tap.deck)
        except ValueError:
            return None
        return cls(game, tap.wait) if tap.wait in WAITS else None

    def tap(self, verb: QuickVerb, **changed: object) -> QuickTap:
        fields: dict = {"variant": self.game.variant, "players": self.game.players,
                        "deck": self.game.deck, "wait": self.wait, **changed}
        if verb is QuickVerb.CHOOSE:   # the latest choice wins: the deck gives way
            game = QuickGame.fitting(fields["variant"], fields["players"], fields["deck"])
            fields.update(variant=game.variant, players=game.players, deck=game.deck)
        return QuickTap(verb, **fields)


@dataclass(frozen=True)
class QuickOption:
    """One option of the choice: its text, whether it is the chosen one, the tap choosing it."""

    text: str
    chosen: bool
    tap: QuickTap


def game_summary(game: QuickGame, t: Translator) -> str:
    return t("quick.game", variant=t(f"variant.{game.variant}"), players=game.players,
             deck=game.deck)


def choice_options(choice: QuickChoice, t: Translator) -> tuple[tuple[QuickOption, ...], ...]:
    """The options, a row each: the game (variant), the players, the deck, and how long
    before computers may fill in (the chat's buttons and the Mini App's alike)."""
    game = choice.game
    return (
        tuple(QuickOption(t(f"variant.{v}"), v == game.variant,
                          choice.tap(QuickVerb.CHOOSE, variant=v)) for v in Variant),
        tuple(QuickOption(str(n), n == game.players, choice.tap(QuickVerb.CHOOSE, players=n))
              for n in range(MIN_PLAYERS, MAX_PLAYERS + 1)),
        tuple(QuickOption(str(d), d == game.deck, choice.tap(QuickVerb.CHOOSE, deck=d))
              for d in DECKS),
        tuple(QuickOption(t("quick.wait_s", n=w), w == choice.wait,
                          choice.tap(QuickVerb.CHOOSE, wait=w)) for w in WAITS),
    )


def quick_setup_screen(choice: QuickChoice, t: Translator) -> Screen:
    """The game to wait for: variant, players, deck, how long before computers may fill in."""
    rows: Keyboard = (
        *(tuple(button(marked(o.text, o.chosen), o.tap) for o in row)
          for row in choice_options(choice, t)),
        (button(t("btn.quick_find"), choice.tap(QuickVerb.FIND)),),
    )
    return Screen(t("quick.choose", game=game_summary(choice.game, t), wait=choice.wait), rows)


def waiting_lines(place: QueuePlace, t: Translator) -> list[str]:
    """What he reads while he waits: his game, how many wait for it, and once his wait is
    over, that he may start with computers."""
    game = place.game
    lines = [t("quick.waiting", game=game_summary(game, t)),
             t("quick.waiting_count", waiting=place.waiting, players=game.players)]
    if place.may_start:
        lines.append(t("quick.may_start"))
    return lines


def waiting_buttons(place: QueuePlace, t: Translator) -> list[tuple[str, QuickTap]]:
    """Start with computers once his wait is over, and Leave (each one's text and tap)."""
    start = [(t("btn.quick_start"), QuickTap(QuickVerb.START))] if place.may_start else []
    return [*start, (t("btn.quick_leave"), QuickTap(QuickVerb.LEAVE))]


def waiting_screen(place: QueuePlace, t: Translator) -> Screen:
    """His message while he waits: how many wait for the same game, Leave, and once his wait
    is over, Start with computers."""
    return Screen("\n\n".join(waiting_lines(place, t)),
                  tuple((button(text, tap),) for text, tap in waiting_buttons(place, t)))


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
