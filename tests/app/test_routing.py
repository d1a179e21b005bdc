"""Every button the bot draws reaches its own handler; anything else reaches "unknown button"."""

from __future__ import annotations

import pytest
from aiogram.types import CallbackQuery, Chat, Message, User

from engine import Action, Card, Game, Rules, Variant
from tg_durak.i18n.translate import translator
from tg_durak.play.options import CHOICES, OptionField, PlaySettings, TableOptions, encode
from tg_durak.play.rows import SeatRow
from tg_durak.play.taps import (
    Beat,
    Cancel,
    Pass,
    PlayCard,
    ShowTrump,
    Take,
    TransferMode,
    TransferWith,
)
from tg_durak.render.absent import kick_screen, leave_screen
from tg_durak.render.callbacks import MenuAction, Move, RuleBook, SetupField, Verb
from tg_durak.render.game import GameScreenInput, SeatInfo, game_screen
from tg_durak.render.menus import (
    lang_screen,
    options_screen,
    play_buttons,
    quit_screen,
    rules_screen,
    setup_screen,
)
from tg_durak.render.screen import Keyboard
from tg_durak.telegram.callbacks import (
    MenuCallback,
    MoveCallback,
    SetupOptionCallback,
    record_of,
)
from tg_durak.telegram.handlers import game, group, lobby, menus, notify, quick

T = translator("en")
VERB_TAPS = {
    Verb.CARD: PlayCard,
    Verb.TARGET: Beat,
    Verb.TRANSFER_MODE: TransferMode,
    Verb.TRANSFER: TransferWith,
    Verb.TAKE: Take,
    Verb.PASS: Pass,
    Verb.SHOW_TRUMP: ShowTrump,
    Verb.CANCEL: Cancel,
}
MENU_HANDLERS = {
    MenuAction.QUICK: menus.quick_play,
    MenuAction.AGAIN: menus.quick_play,
    MenuAction.SETUP: menus.open_setup,
    MenuAction.RESIGN: menus.resign,
    MenuAction.KEEP: menus.keep_playing,
    MenuAction.LEAVE: group.leave_asked,
    MenuAction.LEAVE_SURE: group.leave_confirmed,
}


async def handler_for(data: str) -> object:
    """The handler the dispatcher would run: the first whose filters pass, routers in order."""
    ann = User(id=1, is_bot=False, first_name="Ann")
    message = Message(message_id=1, date=0, chat=Chat(id=1, type="private"))   # as all but lobbies
    query = CallbackQuery(id="1", from_user=ann, chat_instance="c", data=data, message=message)
    # as app.build_dispatcher includes them
    for router in (quick.router(), notify.router(), group.router(), lobby.router(),
                   menus.router(), game.router()):
        for handler in router.callback_query.handlers:
            passed, _ = await handler.check(query)
            if passed:
                return handler.callback
    raise AssertionError(f"nothing handles {data!r}")


def _data(markup: Keyboard) -> list[str]:
    return [b.callback_data for row in markup for b in row if b.callback_data]


@pytest.mark.parametrize("verb", list(Verb))
async def test_every_verb_has_its_handler(verb: Verb) -> None:
    assert set(VERB_TAPS) == set(Verb)
    data = MoveCallback(table=1, v=0, verb=verb, card=0, target=0).pack()
    assert await handler_for(data) is game.tapped
    move = record_of(MoveCallback.unpack(data), Move)
    assert type(game.PRESSED[verb](move)) is VERB_TAPS[verb]


@pytest.mark.parametrize("action", list(MenuAction))
async def test_every_menu_action_has_its_handler(action: MenuAction) -> None:
    if action is MenuAction.RULES:
        for book in RuleBook:
            data = MenuCallback(action=action, book=book).pack()
            assert await handler_for(data) is menus.full_rules
    else:
        assert await handler_for(MenuCallback(action=action).pack()) is MENU_HANDLERS[action]


async def test_every_menu_button_drawn_is_handled() -> None:
    transfer = PlaySettings(TableOptions(variant=Variant.TRANSFER))
    screens = [setup_screen(PlaySettings(), T).keyboard, options_screen(transfer, T).keyboard,
               play_buttons(T), quit_screen(T).keyboard, rules_screen(T).keyboard,
               lang_screen("en", T).keyboard, leave_screen(T).keyboard,
               kick_screen(1, [SeatRow(0, 7, "Ann")], T).keyboard]
    handled = {await handler_for(data) for markup in screens for data in _data(markup)}
    assert game.unknown not in handled
    assert {menus.choose_option, menus.choose_bots, menus.choose_level, menus.more_options,
            menus.back_to_setup, menus.start_from_setup, menus.choose_language,
            menus.full_rules, group.leave_confirmed, menus.keep_playing,
            group.kick_tapped} <= handled


@pytest.mark.parametrize("field", list(OptionField))
async def test_every_option_value_reaches_the_option_handler(field: OptionField) -> None:
    for value in CHOICES[field]:
        data = SetupOptionCallback(field=field, value=encode(value)).pack()
        assert await handler_for(data) is menus.choose_option


def test_setup_and_option_buttons_never_parse_as_each_other() -> None:
    """They share the prefix "s", so the variant buttons of older setup messages still work."""
    assert not {f.value for f in SetupField} & {f.value for f in OptionField}


async def test_every_game_button_drawn_is_handled() -> None:
    game_ = Game.from_deal(Rules(players=2, variant="transfer", show_trump=True),
                           [["6s", "6c", "9d", "Ks", "Qd", "10c"],
                            ["6h", "7h", "6d", "Jh", "Ac", "Jd"]], ["Ah"], first_attacker=0)
    game_.apply(0, Action("attack", Card.parse("6s")), 0.0)
    game_.apply(0, Action("attack", Card.parse("6c")), 0.0)
    seats = (SeatInfo("Ann", False), SeatInfo("", True, "normal"))
    verbs = set()
    leave = MenuCallback(action=MenuAction.LEAVE).pack()
    for extra in ({}, {"choosing_transfer": True}, {"choosing_card": Card.parse("7h")},
                  {"leave": True}):
        inp = GameScreenInput(table_id=1, version=game_.version, view=game_.view(1),
                              legal=tuple(game_.legal_actions(1)), seats=seats, last=(), now=0.0,
                              **extra)
        for data in _data(game_screen(inp, T).keyboard):
            assert await handler_for(data) is not game.unknown, data
            if data != leave:
                verbs.add(MoveCallback.unpack(data).verb)
        assert (leave in _data(game_screen(inp, T).keyboard)) == ("leave" in extra)
    assert verbs >= {Verb.CARD, Verb.TARGET, Verb.TRANSFER_MODE, Verb.TRANSFER, Verb.TAKE,
                     Verb.SHOW_TRUMP, Verb.CANCEL}


@pytest.mark.parametrize("data", [
    "m:1:0:r:-1:-1",            # the refresh verb no button sends any more
    "m:1:0:z:3:-1", "m:1:2", "m:x:y:z:1:1",
    "s:bots:99", "s:bots:0", "s:bots:", "s:variant:poker", "s:level:godlike", "s:colour:red",
    "s:deck:25", "s:deck:", "s:turn_seconds:31", "s:throw_in:nobody", "s:draws:true",
    "s:first_round_five:2", "s:show_trump:", "s:variant", "s:deck:24:1",
    "u:rules:", "u:rules:poker", "u:dance:",
    "l:xx", "garbage", "", "k:1", "k:x:1", "u:leave?:",
])
async def test_forged_values_reach_only_the_unknown_button(data: str) -> None:
    assert await handler_for(data) is game.unknown
