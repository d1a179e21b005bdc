"""Telegram says no: a deleted game message, a flood of 429s. The game goes on, nothing lost."""

from __future__ import annotations

from tests.bot.conftest import ALICE, game_message, is_over, play_to_end, remembered
from tg_durak.emulator import FakeTelegram, RateLimits
from tg_durak.storage import Store


async def _quick_game(tg: FakeTelegram):
    await tg.send_text(ALICE, "/start")
    await tg.wait_for(lambda: tg.last_message(ALICE) is not None)
    await tg.press(ALICE, tg.last_message(ALICE), "▶ Play")
    await tg.wait_for(lambda: game_message(tg, ALICE) is not None)
    return game_message(tg, ALICE)


async def test_a_deleted_game_message_is_sent_again_and_remembered(tg: FakeTelegram, bot,
                                                                   store: Store) -> None:
    first = await _quick_game(tg)
    tg.user_delete_message(ALICE, first.message_id)
    await tg.wait_for(lambda: game_message(tg, ALICE) is not None
                      and game_message(tg, ALICE).message_id != first.message_id, timeout=60)
    second = game_message(tg, ALICE)
    table = await store.tables.for_user(ALICE)
    wanted = {(ALICE, second.message_id)}
    assert await remembered(store, table.id, wanted) == wanted
    final = await play_to_end(tg, ALICE, seed=8)
    assert final.message_id == second.message_id and is_over(final)


async def test_flood_limits_slow_the_bot_down_but_lose_nothing(tg: FakeTelegram, bot,
                                                               store: Store) -> None:
    tg.rate_limits = RateLimits(private_per_second=1)
    await _quick_game(tg)
    await tg.wait_for(lambda: any(c.error_code == 429 for c in tg.calls), timeout=60)
    tg.rate_limits = RateLimits()
    final = await play_to_end(tg, ALICE, seed=9)
    assert is_over(final)
    await bot.publisher.flush()
    table = await store.tables.for_user(ALICE, statuses=("finished",))
    assert table is not None and table.status == "finished"
    retried = [c for c in tg.calls if c.error_code == 429]
    assert retried and all(c.method in ("sendMessage", "editMessageText") for c in retried)
