"""The setup's buttons: each change is remembered and redraws its own screen; a value that does
not fit (show-trump in the throw-in game) is refused as an unknown button; the deck and the
number of opponents give way to each other with a word why."""

from __future__ import annotations

from dataclasses import dataclass, field
from types import SimpleNamespace

from tg_durak.i18n.translate import translator
from tg_durak.play.options import OptionField, PlaySettings, TableOptions
from tg_durak.play.rows import UserRow
from tg_durak.render.callbacks import SetupField
from tg_durak.render.menus import options_screen, setup_screen
from tg_durak.telegram.callbacks import SetupCallback, SetupOptionCallback
from tg_durak.telegram.handlers import menus
from tg_durak.telegram.last_menus import LastMenus

T = translator("en")
CHAT, MESSAGE = 7, 70


@dataclass
class Query:
    answers: list[tuple[str | None, bool]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.message = SimpleNamespace(chat=SimpleNamespace(id=CHAT), message_id=MESSAGE)
        self.from_user = SimpleNamespace(id=1)

    async def answer(self, text: str | None = None, show_alert: bool = False) -> None:
        self.answers.append((text, show_alert))


@dataclass
class Store:
    saved: list[dict] = field(default_factory=list)

    @property
    def users(self) -> Store:
        """The users' repository: the one method the menus use is this fake's own."""
        return self

    async def set_settings(self, user_id: int, settings: dict) -> None:
        self.saved.append(settings)


@dataclass
class Publisher:
    shown: list = field(default_factory=list)
    sent: list = field(default_factory=list)

    def show(self, key: object, chat_id: int, message_id: int, screen: object) -> None:
        self.shown.append((chat_id, message_id, screen))

    def send(self, chat_id: int, screen: object, **where: object) -> None:
        self.sent.append((chat_id, screen))


def user(settings: PlaySettings | dict) -> UserRow:
    saved = settings.to_dict() if isinstance(settings, PlaySettings) else settings
    return UserRow(id=1, name="Ann", language="en", settings=saved)


async def tap_option(settings: PlaySettings | dict, option: OptionField, value: str):
    query, store, publisher = Query(), Store(), Publisher()
    await menus.choose_option(query, SetupOptionCallback(field=option, value=value), T,
                              user(settings),
                              store, publisher, LastMenus())
    return query, store, publisher


async def test_an_option_is_remembered_and_its_screen_redrawn() -> None:
    query, store, publisher = await tap_option(PlaySettings(), OptionField.TURN, "15")
    expected = PlaySettings(TableOptions(turn_seconds=15))
    assert store.saved == [expected.to_dict()]
    assert publisher.shown == [(CHAT, MESSAGE, options_screen(expected, T))]
    assert query.answers == [(None, False)]


async def test_the_variant_redraws_the_main_setup() -> None:
    _, store, publisher = await tap_option(PlaySettings(), OptionField.VARIANT, "transfer")
    expected = PlaySettings(TableOptions(variant="transfer"))
    assert store.saved == [expected.to_dict()]
    assert publisher.shown == [(CHAT, MESSAGE, setup_screen(expected, T))]


async def test_settings_saved_by_an_older_version_are_changed_and_completed() -> None:
    _, store, _ = await tap_option({"variant": "transfer", "bots": 2, "level": "hard"},
                                   OptionField.SHOW_TRUMP, "1")
    assert store.saved == [PlaySettings(TableOptions(variant="transfer", show_trump=True), 2,
                                        "hard").to_dict()]


async def test_show_trump_in_the_throw_in_game_is_an_unknown_button() -> None:
    query, store, publisher = await tap_option(PlaySettings(), OptionField.SHOW_TRUMP, "1")
    assert query.answers == [(T("tap.unknown"), True)]
    assert store.saved == [] and publisher.shown == []


async def test_the_same_value_again_changes_nothing() -> None:
    query, store, publisher = await tap_option(PlaySettings(), OptionField.DECK, "36")
    assert store.saved == [] and publisher.shown == [] and query.answers == [(None, False)]


async def test_24_cards_leave_3_opponents_and_say_why() -> None:
    query, store, _ = await tap_option(PlaySettings(bots=5), OptionField.DECK, "24")
    assert store.saved == [PlaySettings(TableOptions(deck=24), bots=3).to_dict()]
    assert query.answers == [(T("setup.small_deck"), False)]


async def test_5_opponents_bring_back_36_cards_and_say_why() -> None:
    query, store, publisher = Query(), Store(), Publisher()
    small = PlaySettings(TableOptions(deck=24), bots=3)
    await menus.choose_bots(query, SetupCallback(field=SetupField.BOTS, value="5"), T, user(small),
                            store, publisher, LastMenus())
    expected = PlaySettings(bots=5)
    assert store.saved == [expected.to_dict()]
    assert publisher.shown == [(CHAT, MESSAGE, setup_screen(expected, T))]
    assert query.answers == [(T("setup.small_deck"), False)]


async def test_more_options_and_back_switch_the_screen_in_place() -> None:
    settings = PlaySettings(TableOptions(deck=52), bots=2)
    query, publisher = Query(), Publisher()
    await menus.more_options(query, T, user(settings), publisher, LastMenus())
    await menus.back_to_setup(query, T, user(settings), publisher, LastMenus())
    assert publisher.shown == [(CHAT, MESSAGE, options_screen(settings, T)),
                               (CHAT, MESSAGE, setup_screen(settings, T))]


async def test_settings_button_opens_the_options() -> None:
    """⚙ Settings on the greeting: the options themselves, not a copy of the setup."""
    settings = PlaySettings(TableOptions(throw_in="neighbours"), bots=2)
    query, publisher = Query(), Publisher()
    await menus.open_setup(query, T, user(settings), publisher, LastMenus())
    assert publisher.sent == [(CHAT, options_screen(settings, T))], "a message of its own"
