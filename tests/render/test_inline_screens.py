"""What typing @bot offers (render/inline.py), in every language: a table of each game with the
person's last settings, his record card, and the lobby's end in a chat the bot is not in."""

from __future__ import annotations

import pytest

from engine import Variant
from tg_durak.i18n.translate import LOCALES, translator
from tg_durak.play.inline import INLINE_CHATS_BELOW, inline_chat, is_inline, signature
from tg_durak.play.options import TableOptions
from tg_durak.play.ratings import Rating
from tg_durak.play.rows import PlayerRecord, Stats
from tg_durak.render.callbacks import MAX_BYTES, InlineOpen
from tg_durak.render.group import lobby_closed_screen
from tg_durak.render.inline import RECORD_ID, InlineOffers, inline_articles

NONE = Stats(0, 0, 0, 0, 0)
HOST = 7_000_000_001


def offers(record: PlayerRecord, options: TableOptions | None = None) -> InlineOffers:
    return InlineOffers(
        host_id=HOST, host="Ann <b>", options=options or TableOptions(deck=24, turn_seconds=60),
        signatures={v: signature("123:TOKEN", v, HOST) for v in Variant},
        record=record, bot_username="durak_bot", setup_payload="play")


@pytest.mark.parametrize("locale", LOCALES)
def test_each_game_with_the_last_settings_and_the_record(locale: str) -> None:
    t = translator(locale)
    articles = inline_articles(offers(PlayerRecord(NONE, NONE, None)), t)
    assert [a.id for a in articles] == [*map(str, Variant), RECORD_ID]
    for article, variant in zip(articles, Variant, strict=False):
        assert article.title == t("inline.game", game=t(f"variant.{variant}"))
        assert t.plural("game.cards", 24, n=24) in article.description   # his last deck
        assert "Ann &lt;b&gt;" in article.screen.text   # his name, escaped
        assert article.screen.keyboard is not None
        (join,), = article.screen.keyboard
        assert join.text == t("btn.lobby.join") and join.callback_data is not None
        assert len(join.callback_data.encode()) <= MAX_BYTES
        assert join.callback_data == InlineOpen(variant, HOST,
                                                signature("123:TOKEN", variant, HOST)).pack()
    record = articles[-1]
    assert record.description == t("inline.no_rating")
    assert record.screen.keyboard is not None
    (play,), = record.screen.keyboard
    assert play.url == "https://t.me/durak_bot?start=play" and play.callback_data is None


def test_the_record_card_shows_the_rating() -> None:
    t = translator("en")
    rating = Rating(30.0, 2.0, 3)
    articles = inline_articles(offers(PlayerRecord(Stats(3, 1, 2, 0, 0), NONE, rating)), t)
    assert articles[-1].description == f"Rating: {rating.shown}"
    assert str(rating.shown) in articles[-1].screen.text


def test_the_transfer_game_keeps_show_trump_and_the_throw_in_game_drops_it() -> None:
    t = translator("en")
    options = TableOptions(variant=Variant.TRANSFER, show_trump=True)
    throw_in, transfer, _ = inline_articles(offers(PlayerRecord(NONE, NONE, None), options), t)
    assert t("option.show_trump") in transfer.description
    assert t("option.show_trump") not in throw_in.description


@pytest.mark.parametrize("locale", LOCALES)
def test_a_closed_inline_lobby_points_to_typing_the_bots_name(locale: str) -> None:
    t = translator(locale)
    for reason in ("expired", "cancelled"):
        text = lobby_closed_screen(reason, t, "durak_bot").text
        assert "@durak_bot" in text and "/new" not in text


def test_an_inline_chat_key_is_stable_and_below_every_real_chat() -> None:
    assert inline_chat("-4387712") == inline_chat("-4387712") != inline_chat("-4387713")
    assert is_inline(inline_chat("x")) and inline_chat("x") <= INLINE_CHATS_BELOW
    assert not is_inline(-1_009_999_999_999) and not is_inline(-(2**52) + 1)
    assert not str(inline_chat("x")).startswith("-100")   # no t.me/c/ link is made of it
