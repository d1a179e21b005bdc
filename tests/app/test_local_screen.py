"""The terminal mode's screen: a button's number depends on its own message alone; a number
with no button is answered on the screen, never sent to the bot as chat text; a tap the bot does
not answer, or on a message deleted meanwhile, is told on the screen and the session goes on."""

from __future__ import annotations

import io

import pytest
from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup

from tg_durak.emulator import Change, FakeTelegram, InlineButton, Message
from tg_durak.i18n.translate import LOCALES, translator
from tg_durak.terminal import USER_ID, ChatOrder, Terminal, render_screen

EN = translator("en")


def message(message_id: int, text: str, *rows: list[str]) -> Message:
    buttons = tuple(tuple(InlineButton(label, callback_data=f"{message_id}:{label}")
                          for label in row) for row in rows)
    return Message(message_id=message_id, chat_id=USER_ID, sender_id=0, from_bot=True, date=0,
                   text=text, buttons=buttons)


def numbers(messages: list[Message], order: ChatOrder) -> dict[int, tuple[int, str]]:
    """number -> (message id, button text) on the screen."""
    screen = render_screen(messages, order, EN, None)
    return {n: (m.message_id, b.text) for n, (m, b) in screen.buttons.items()}


def game(hand: list[str]) -> Message:
    return message(2, "Trump 9♥", hand, ["Take"])


def test_a_messages_numbers_stay_while_others_come_and_change() -> None:
    order = ChatOrder()
    order.note(Change("message", USER_ID, 2))
    hand = ["7♠", "9♠", "Q♠", "7♦", "J♦", "10♥"]
    alone = numbers([game(hand)], order)
    assert alone == {n: (2, label) for n, label in enumerate([*hand, "Take"], start=1)}

    rules = message(3, "Durak: get rid of your cards")
    order.note(Change("message", USER_ID, 3))
    order.note(Change("edit", USER_ID, 2))  # the game goes on above the answer
    assert numbers([game(hand), rules], order) == alone

    chooser = message(4, "Choose your language:", ["English", "Русский"], ["Українська", "Polski"])
    order.note(Change("message", USER_ID, 4))
    order.note(Change("edit", USER_ID, 2))
    shown = numbers([game(hand), rules, chooser], order)
    assert {n: b for n, b in shown.items() if b[0] == 2} == alone
    languages = {n: b for n, b in shown.items() if b[0] == 4}
    assert sorted(languages) == [11, 12, 13, 14]

    order.note(Change("edit", USER_ID, 2))  # a card played: the hand is shorter
    fewer = numbers([game(hand[1:]), rules, chooser], order)
    assert {n: b for n, b in fewer.items() if b[0] == 4} == languages


def test_an_old_menu_leaves_the_screen_once_a_newer_message_has_buttons() -> None:
    order = ChatOrder()
    menu = message(1, "Hi! Let's play Durak.", ["▶ Play", "⚙ Settings"])
    order.note(Change("message", USER_ID, 1))
    order.note(Change("message", USER_ID, 2))
    screen = render_screen([menu, game(["7♠"])], order, EN, None)
    assert "Let's play" not in screen.text
    assert {n: b.text for n, (_, b) in screen.buttons.items()} == {1: "7♠", 2: "Take"}


def test_a_finished_game_stays_above_an_answer_without_buttons() -> None:
    order = ChatOrder()
    over = message(2, "🤖 Computer 1 (Normal) is the durak", ["▶ Play again"])
    stats = message(3, "Games: 1")
    order.note(Change("message", USER_ID, 2))
    order.note(Change("message", USER_ID, 3))
    screen = render_screen([over, stats], order, EN, None)
    assert screen.text.index("durak") < screen.text.index("Games")
    assert {n: b.text for n, (_, b) in screen.buttons.items()} == {1: "▶ Play again"}


NO_BUTTON_99 = {"en": "no button 99", "ru": "нет кнопки 99", "uk": "немає кнопки 99",
                "pl": "nie ma przycisku 99"}


@pytest.mark.parametrize("locale", LOCALES)
async def test_a_number_without_a_button_is_not_sent_as_text(locale: str) -> None:
    async with FakeTelegram() as tg:
        tg.add_user(USER_ID, "Newcomer", language_code=locale)
        out = io.StringIO()
        term = Terminal(tg, translator(locale), out=out)
        assert await term.handle("99\n")
        assert f"» {NO_BUTTON_99[locale]}\n" in out.getvalue()
        assert tg.messages(USER_ID, include_user=True) == [], "nothing reached the chat"
        assert await term.handle("/rules")
        assert [m.text for m in tg.messages(USER_ID, include_user=True)] == ["/rules"]


NO_ANSWER = {"en": "the bot did not answer; try again", "ru": "бот не ответил; попробуй ещё раз",
             "uk": "бот не відповів; спробуй ще раз",
             "pl": "bot nie odpowiedział; spróbuj jeszcze raz"}
GONE = {"en": "that message is gone", "ru": "этого сообщения больше нет",
        "uk": "цього повідомлення вже немає", "pl": "tej wiadomości już nie ma"}


async def _menu_from_a_silent_bot(tg: FakeTelegram) -> Message:
    """A message with a button from a bot that is not running: nobody will answer a tap."""
    await tg.send_text(USER_ID, "/start")
    markup = InlineKeyboardMarkup(
        inline_keyboard=[[InlineKeyboardButton(text="▶ Play", callback_data="u:play")]]
    )
    async with tg.create_bot() as bot:
        sent = await bot.send_message(USER_ID, "Hi!", reply_markup=markup)
    return tg.message(USER_ID, sent.message_id)


@pytest.mark.parametrize("locale", LOCALES)
async def test_a_tap_the_bot_never_answers_is_told_and_the_session_goes_on(locale: str) -> None:
    async with FakeTelegram() as tg:
        tg.add_user(USER_ID, "Newcomer", language_code=locale)
        menu = await _menu_from_a_silent_bot(tg)
        out = io.StringIO()
        term = Terminal(tg, translator(locale), out=out, press_timeout=0.2)
        await term.draw()
        assert term.screen.buttons == {1: (menu, menu.buttons[0][0])}

        assert await term.handle("1")
        footer = translator(locale)("terminal.keys")
        assert out.getvalue().endswith(f"» {NO_ANSWER[locale]}\n{footer}\n")
        assert [q.data for q in tg.state.callbacks.values()] == ["u:play"], "the tap was sent"
        assert await term.handle("/rules")
        assert [m.text for m in tg.messages(USER_ID, include_user=True)][-1] == "/rules"


async def test_a_tap_on_a_message_deleted_since_the_screen_was_drawn_is_told() -> None:
    async with FakeTelegram() as tg:
        tg.add_user(USER_ID, "Newcomer", language_code="pl")
        menu = await _menu_from_a_silent_bot(tg)
        out = io.StringIO()
        term = Terminal(tg, translator("pl"), out=out, press_timeout=0.2)
        await term.draw()
        tg.user_delete_message(USER_ID, menu.message_id)

        assert await term.handle("1")
        assert f"» {GONE['pl']}\n" in out.getvalue()
        assert tg.state.callbacks == {}, "no tap on a deleted message"
        assert term.screen.buttons == {}, "the screen no longer shows it"


def test_a_menu_shown_alone_never_takes_the_games_numbers() -> None:
    """/quit (or /lang) mid-game: the question stands alone on the screen, yet under numbers of
    its own, 11 on, and when the game returns above it the hand is at 1 again: "1", a card a
    moment ago, never resigns (issue 16)."""
    order = ChatOrder()
    hand = ["7♠", "9♠", "Q♠", "7♦", "J♦", "10♥"]
    order.note(Change("message", USER_ID, 2))
    before = numbers([game(hand)], order)
    assert before == {n: (2, label) for n, label in enumerate([*hand, "Take"], start=1)}
    question = message(4, "Resign?", ["Resign", "Keep playing"])
    order.note(Change("message", USER_ID, 4))
    alone = numbers([game(hand), question], order)
    assert alone == {11: (4, "Resign"), 12: (4, "Keep playing")}

    order.note(Change("edit", USER_ID, 2))  # the timer bar: the game is back on the screen
    both = numbers([game(hand), question], order)
    assert {n: b for n, b in both.items() if b[0] == 4} == alone
    assert {n: b for n, b in both.items() if b[0] == 2} == before

    # He resigns: the question goes, the game message becomes the result with Play again.
    order.note(Change("edit", USER_ID, 2))
    over = numbers([message(2, "You resigned", ["▶ Play again"])], order)
    assert over == {1: (2, "▶ Play again")}


def test_a_card_keeps_its_number_as_the_hand_shrinks_and_grows() -> None:
    order = ChatOrder()
    order.note(Change("message", USER_ID, 2))
    first = numbers([game(["7♠", "9♠", "K♠", "K♦"])], order)
    assert first == {1: (2, "7♠"), 2: (2, "9♠"), 3: (2, "K♠"), 4: (2, "K♦"), 5: (2, "Take")}
    order.note(Change("edit", USER_ID, 2))
    played = numbers([game(["•9♠", "K♠", "•K♦"])], order)   # 7♠ played; marks come and go
    assert played == {2: (2, "•9♠"), 3: (2, "K♠"), 4: (2, "•K♦"), 5: (2, "Take")}
    order.note(Change("edit", USER_ID, 2))
    drawn = numbers([game(["6♥", "9♠", "K♠", "K♦"])], order)   # a drawn card takes a free one
    assert drawn == {1: (2, "6♥"), 2: (2, "9♠"), 3: (2, "K♠"), 4: (2, "K♦"), 5: (2, "Take")}


def test_a_button_labelled_with_a_number_is_tapped_by_that_number() -> None:
    """The setup: typing 2 for two opponents taps "2", not the second button (issue 16)."""
    order = ChatOrder()
    order.note(Change("message", USER_ID, 5))
    setup = message(5, "Throw-in · 36 cards", ["✅ Throw-in", "Transfer"],
                    ["✅ 1", "2", "3", "4", "5"], ["Easy", "✅ Normal", "Hard"],
                    ["More options", "Start"])
    shown = numbers([setup], order)
    assert {n: label for n, (_, label) in shown.items() if n <= 5} == {
        1: "✅ 1", 2: "2", 3: "3", 4: "4", 5: "5"}
    assert sorted(shown) == list(range(1, 13))


def test_a_button_that_comes_as_a_card_leaves_does_not_take_the_cards_number() -> None:
    """A 1 typed for the card just played (or played for him) taps nothing, not the Pass that
    came with the redraw (issue 16); a card drawn later may have the 1."""
    order = ChatOrder()
    order.note(Change("message", USER_ID, 2))
    numbers([message(2, "Trump 9♥", ["7♠", "9♠", "K♠"])], order)
    order.note(Change("edit", USER_ID, 2))
    passing = numbers([message(2, "Trump 9♥", ["9♠", "K♠"], ["Pass"])], order)
    assert passing == {2: (2, "9♠"), 3: (2, "K♠"), 4: (2, "Pass")}
    order.note(Change("edit", USER_ID, 2))
    drawn = numbers([message(2, "Trump 9♥", ["6♥", "9♠", "K♠"], ["Pass"])], order)
    assert drawn == {1: (2, "6♥"), 2: (2, "9♠"), 3: (2, "K♠"), 4: (2, "Pass")}
