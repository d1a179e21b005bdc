"""What typing @bot in a chat offers (inline mode): a table of each game, with the person's last
settings, and his record. Pure: the Telegram side turns each `InlineArticle` into Telegram's
result. A chosen game posts its offer, whose Join opens the lobby (tables.lobbies.open_inline);
from then on the message is the lobby's and the table's, as a group's (render/group.py)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from html import escape

from engine import Variant
from tg_durak.i18n.translate import Translator
from tg_durak.play.lobby_rules import LobbySettings
from tg_durak.play.options import OptionField, TableOptions, encode, with_option
from tg_durak.play.rows import PlayerRecord
from tg_durak.render.buttons import button, open_bot
from tg_durak.render.callbacks import InlineOpen
from tg_durak.render.group import LobbyScreenInput, lobby_screen
from tg_durak.render.options import options_summary
from tg_durak.render.screen import Screen
from tg_durak.render.standings import record_screen

RECORD_ID = "record"


@dataclass(frozen=True)
class InlineArticle:
    """One result: its id, what the list shows, and the message choosing it sends."""

    id: str
    title: str
    description: str
    screen: Screen


@dataclass(frozen=True)
class InlineOffers:
    host_id: int
    host: str                        # his name
    options: TableOptions            # his last settings
    signatures: dict[Variant, str]   # each game's InlineOpen.sig for him
    record: PlayerRecord
    bot_username: str
    setup_payload: str               # /start's payload that opens the setup privately


def variant_options(options: TableOptions, variant: Variant) -> TableOptions:
    """The person's last settings for `variant`."""
    changed = with_option(options, OptionField.VARIANT, encode(variant))
    return changed if changed is not None else replace(TableOptions(), variant=variant)


def offer_screen(inp: InlineOffers, variant: Variant, t: Translator) -> Screen:
    """The message a chosen game posts: the lobby as it will be, empty, with Join."""
    settings = LobbySettings(variant_options(inp.options, variant))
    lobby = lobby_screen(LobbyScreenInput(0, inp.host, settings, ()), t)
    data = InlineOpen(variant=variant, host=inp.host_id, sig=inp.signatures[variant])
    return Screen(lobby.text, [[button(t("btn.lobby.join"), data)]])


def record_card(inp: InlineOffers, t: Translator) -> Screen:
    """His record, for the chat to see, with a link to play."""
    record = record_screen(inp.record, t)
    text = "\n\n".join((t("inline.record_title", name=escape(inp.host)), record.text))
    return Screen(text, [[open_bot(t("inline.play"), inp.bot_username, inp.setup_payload)]])


def inline_articles(inp: InlineOffers, t: Translator) -> list[InlineArticle]:
    games = [
        InlineArticle(
            id=str(variant), title=t("inline.game", game=t(f"variant.{variant}")),
            description=options_summary(variant_options(inp.options, variant), t),
            screen=offer_screen(inp, variant, t))
        for variant in Variant
    ]
    rating = inp.record.rating
    description = t("inline.no_rating") if rating is None \
        else t("inline.rating", rating=rating.shown)
    return [*games, InlineArticle(RECORD_ID, t("inline.record"), description,
                                  record_card(inp, t))]
