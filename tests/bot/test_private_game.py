"""A player meets the bot: greeting, setup, a whole game against computers, the result."""

from __future__ import annotations

from engine import Game
from tests.bot.conftest import ALICE, game_message, is_over, play_to_end
from tg_durak.emulator import FakeTelegram
from tg_durak.storage import Store


async def test_start_greets_and_registers_commands(tg: FakeTelegram, bot) -> None:
    await tg.send_text(ALICE, "/start")
    await tg.wait_for(lambda: tg.last_message(ALICE) is not None)
    greeting = tg.last_message(ALICE)
    assert "Alice" in greeting.text and "Durak" in greeting.text
    assert [b.text for b in greeting.buttons[0]] == ["▶ Play", "⚙ Settings"]
    for lang in ("", "en", "ru", "uk", "pl"):
        names = [c.command for c in tg.commands(language_code=lang)]
        assert names[:2] == ["play", "quit"] and "lang" in names, lang
    assert tg.commands(language_code="ru")[0].description != tg.commands()[0].description


async def test_whole_game_to_its_result(tg: FakeTelegram, bot, store: Store) -> None:
    await tg.send_text(ALICE, "/play")
    await tg.wait_for(lambda: tg.last_message(ALICE) is not None)
    setup = tg.last_message(ALICE)
    await tg.press(ALICE, setup, "2")          # two computer opponents
    await tg.press(ALICE, tg.message(ALICE, setup.message_id), "Transfer")
    await tg.press(ALICE, tg.message(ALICE, setup.message_id), "▶ Start")
    await tg.wait_for(lambda: game_message(tg, ALICE) is not None)
    first = game_message(tg, ALICE)
    assert first.message_id == setup.message_id, "the setup message becomes the game"
    assert "🤖 Computer 1 (Normal)" in first.text and "🤖 Computer 2 (Normal)" in first.text
    assert "Trump" in first.text

    final = await play_to_end(tg, ALICE, seed=3)
    assert final.message_id == setup.message_id, "one message, edited in place"
    assert final.edit_count > 10
    assert any(w in final.text.lower() for w in ("durak", "draw", "safe"))
    assert is_over(final)
    old_card = next(b for row in first.buttons for b in row if b.callback_data.startswith("m:"))
    assert (await tg.press(ALICE, final, old_card)).text == "This game is over."

    table = await store.tables.for_user(ALICE, statuses=("finished",))
    assert table is not None and table.options["variant"] == "transfer"
    log = await store.tables.log(table.id)
    replayed = Game.replay({**table.snapshot, "log": log})
    assert replayed.to_dict(log=False) == table.snapshot, "snapshot and log agree"
    # The table closes when the game is over, or at once when Alice is out: her place stands.
    assert replayed.is_over or 0 not in replayed.active_seats
    stats = await store.results.stats(ALICE)
    assert stats.games == 1 and stats.durak + stats.safe + stats.draws == 1

    await tg.send_text(ALICE, "/stats")
    await tg.wait_for(lambda: "1" in tg.last_message(ALICE).text
                      and tg.last_message(ALICE).message_id != final.message_id)


async def test_quick_play_and_resign(tg: FakeTelegram, bot, store: Store) -> None:
    await tg.send_text(ALICE, "/start")
    await tg.wait_for(lambda: tg.last_message(ALICE) is not None)
    await tg.press(ALICE, tg.last_message(ALICE), "▶ Play")
    await tg.wait_for(lambda: game_message(tg, ALICE) is not None)
    await tg.send_text(ALICE, "/play")
    await tg.wait_for(lambda: "already" in tg.last_message(ALICE).text)
    await tg.send_text(ALICE, "/quit")
    await tg.wait_for(lambda: "Resign" in tg.last_message(ALICE).text)
    await tg.press(ALICE, tg.last_message(ALICE), "Resign")
    await tg.wait_for(lambda: is_over(game_message(tg, ALICE)))
    assert "resigned" in game_message(tg, ALICE).text
    assert (await store.results.stats(ALICE)).resigned == 1
    assert await store.tables.for_user(ALICE) is None
