"""Players read only their own language, and /lang switches the game message in place."""

from __future__ import annotations

import re

import pytest
from babel.messages.pofile import read_po

from tests.bot.conftest import ALICE, game_message, play_to_end
from tg_durak.emulator import FakeTelegram
from tg_durak.i18n.translate import LOCALES_DIR

OLENA, KASIA = 601, 602
_WORD = re.compile(r"[^\W\d_]{4,}")


def _words(locale: str) -> set[str]:
    with (LOCALES_DIR / locale / "LC_MESSAGES" / "messages.po").open("rb") as f:
        catalog = read_po(f)
    words: set[str] = set()
    for message in catalog:
        if not message.id:
            continue
        texts = message.string if isinstance(message.string, tuple) else (message.string,)
        for text in texts:
            words.update(w.lower() for w in _WORD.findall(re.sub(r"\{\w+\}|<[^>]+>", "", text)))
    return words


def _english_only(locale: str) -> set[str]:
    return _words("en") - _words(locale)


def _everything_read(tg: FakeTelegram, user_id: int, answers: list[str]) -> list[str]:
    texts = list(answers)
    for m in tg.messages(user_id):
        texts.append(m.text)
        texts += [b.text for row in m.buttons for b in row]
    return texts


@pytest.mark.parametrize(("user_id", "name", "code", "texts"), [
    (OLENA, "Olena", "uk", {"pass": "Пас", "take": "Беру"}),
    (KASIA, "Kasia", "pl", {"pass": "Pas", "take": "Biorę"}),
])
async def test_a_whole_game_in_the_players_language(tg: FakeTelegram, bot, user_id: int,
                                                    name: str, code: str,
                                                    texts: dict[str, str]) -> None:
    tg.add_user(user_id, name, language_code=code)
    await tg.send_text(user_id, "/start")
    await tg.wait_for(lambda: tg.last_message(user_id) is not None)
    greeting = tg.last_message(user_id)
    answers = [(await tg.press(user_id, greeting, greeting.buttons[0][0])).text or ""]
    final = await play_to_end(tg, user_id, seed=11, texts=texts)
    await tg.send_text(user_id, "/help")
    await tg.wait_for(lambda: tg.last_message(user_id).message_id > final.message_id)

    foreign = _english_only(code)
    assert len(foreign) > 50, "the check must have English words to look for"
    for text in _everything_read(tg, user_id, answers):
        leaked = {w.lower() for w in _WORD.findall(text)} & foreign
        assert not leaked, (leaked, text)
    assert tg.commands(language_code=code)[0].description != tg.commands()[0].description


async def test_lang_switches_the_same_game_message(tg: FakeTelegram, bot) -> None:
    await tg.send_text(ALICE, "/start")
    await tg.wait_for(lambda: tg.last_message(ALICE) is not None)
    await tg.press(ALICE, tg.last_message(ALICE), "▶ Play")
    await tg.wait_for(lambda: game_message(tg, ALICE) is not None)
    game = game_message(tg, ALICE)
    assert "Trump" in game.text
    await tg.send_text(ALICE, "/lang")
    await tg.wait_for(lambda: "Polski" in [b.text for r in tg.last_message(ALICE).buttons
                                           for b in r])
    await tg.press(ALICE, tg.last_message(ALICE), "Polski")
    await tg.wait_for(lambda: "Atut" in game_message(tg, ALICE).text)
    assert game_message(tg, ALICE).message_id == game.message_id
    await tg.wait_for(lambda: "Polski" in tg.last_message(ALICE).text)
    await tg.send_text(ALICE, "/help")
    await tg.wait_for(lambda: "/play" in tg.last_message(ALICE).text
                      and "Trump" not in tg.last_message(ALICE).text)
    final = await play_to_end(tg, ALICE, seed=2, texts={"pass": "Pas", "take": "Biorę"})
    assert "Atut" in final.text
