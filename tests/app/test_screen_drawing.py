"""A screen is drawn only when what it shows changed: a stale or refused tap shows the person's
last screen again (first, as the tapper's) without drawing it; a move, a choice, a language or
a timer bar draws anew. What a seat sees and may do is built once per version."""

from __future__ import annotations

import pytest

from engine import Game
from tests.app.test_table_service import (
    ONE_COMPUTER,
    START,
    USER,
    FakeClock,
    World,
    deal_where,
    person_leads,
    service,
)
from tg_durak.outbox.queue import Priority
from tg_durak.play.taps import Cancel, Choosing, PlayCard, Take
from tg_durak.storage import Store
from tg_durak.tables import screens as tables_module


@pytest.fixture
def world(store: Store) -> World:
    return service(store, FakeClock(START))


@pytest.fixture
def drawings(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The version of every game screen drawn from now on."""
    drawn: list[int] = []
    draw = tables_module.game_screen

    def counting(inp, t):
        drawn.append(inp.version)
        return draw(inp, t)

    monkeypatch.setattr(tables_module, "game_screen", counting)
    return drawn


async def started(world: World, monkeypatch: pytest.MonkeyPatch) -> tuple[int, Game]:
    deal_where(monkeypatch, person_leads)
    table_id = await world.tables.start_private(USER, "Ann", ONE_COMPUTER)
    return table_id, world.tables.core.tables[table_id].game


async def test_a_stale_or_refused_tap_shows_the_last_screen_undrawn(
    world: World, monkeypatch: pytest.MonkeyPatch, drawings: list[int]
) -> None:
    table_id, game = await started(world, monkeypatch)
    card = game.legal_actions(0)[0].card
    last = world.shown_to(USER)[-1]
    drawings.clear()

    await world.tables.moves.tap(USER, table_id, 5, PlayCard(card.index))   # stale
    await world.tables.moves.tap(USER, table_id, 0, Take())   # the attacker cannot take
    again = world.shown_to(USER)[-2:]
    assert drawings == [], "nothing changed: nothing drawn"
    assert [s.screen for s in again] == [last.screen] * 2
    assert [s.priority for s in again] == [Priority.MOVER] * 2, "the tapper's screen first"


async def test_a_move_a_choice_and_a_language_draw_anew(
    world: World, monkeypatch: pytest.MonkeyPatch, drawings: list[int]
) -> None:
    table_id, game = await started(world, monkeypatch)
    card = game.legal_actions(0)[0].card
    drawings.clear()

    await world.tables.moves.tap(USER, table_id, 0, PlayCard(card.index))
    assert drawings == [1]
    await world.store.users.ensure(USER, "Ann")
    await world.store.users.set_language(USER, "ru")   # as /lang does, then the table follows
    await world.tables.change_locale(USER)
    assert drawings == [1, 1]
    assert "Козырь" in world.shown_to(USER)[-1].screen.text


async def test_a_timer_bar_is_drawn_again(
    world: World, monkeypatch: pytest.MonkeyPatch, drawings: list[int]
) -> None:
    table_id, _ = await started(world, monkeypatch)
    drawings.clear()
    await world.timer.ring(table_id, world.timer.armed[table_id])
    assert drawings == [0]
    assert world.shown_to(USER)[-1].priority is Priority.BAR


async def test_choosing_and_cancelling_draw_each_time(
    world: World, monkeypatch: pytest.MonkeyPatch, drawings: list[int]
) -> None:
    table_id, _ = await started(world, monkeypatch)
    live = world.tables.core.tables[table_id]
    before = world.shown_to(USER)[-1].screen
    drawings.clear()
    live.choosing[0] = Choosing(card=live.game.hand(0)[0])
    world.tables.screens.show(live, only=USER)
    assert drawings == [0] and world.shown_to(USER)[-1].screen != before
    await world.tables.moves.tap(USER, table_id, 0, Cancel())
    assert drawings == [0, 0]
    assert world.shown_to(USER)[-1].screen == before


async def test_what_a_seat_sees_is_built_once_per_version(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    table_id, game = await started(world, monkeypatch)
    live = world.tables.core.tables[table_id]
    first = live.seen_by(0)
    assert live.seen_by(0) is first
    assert first[0] == game.view(0) and list(first[1]) == game.legal_actions(0)
    await world.tables.moves.tap(USER, table_id, 0, PlayCard(game.legal_actions(0)[0].card.index))
    after = live.seen_by(0)
    assert after is not first and after[0].table == live.game.view(0).table != []
    live.back.add(0)
    live.unreachable.add(0)   # away now: a new view, marked so
    assert 0 in live.seen_by(0)[0].away


async def test_a_replaced_game_is_seen_afresh(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    table_id, game = await started(world, monkeypatch)
    live = world.tables.core.tables[table_id]
    first = live.seen_by(0)
    live.game = Game.from_dict(game.to_dict())   # the same version, another object
    assert live.seen_by(0) is not first


async def test_the_stored_snapshot_is_not_kept_in_memory(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    table_id, _ = await started(world, monkeypatch)
    assert world.tables.core.tables[table_id].row.snapshot is None
