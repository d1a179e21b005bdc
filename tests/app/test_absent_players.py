"""People who stop playing a group table: away, out of reach, leaving, removed (issue 10).

Three people at one table (no computers), with the table service's real store and a fake
publisher, clock and timer (tests/app/test_table_service.py).
"""

from __future__ import annotations

import pytest

from tests.app.test_table_service import (
    ANN,
    BOB,
    CID,
    PEOPLE,
    START,
    FakeClock,
    World,
    service,
    stored,
    three_people,
)
from tg_durak.play.answers import Answer, refused
from tg_durak.play.taps import Pass
from tg_durak.storage import Store
from tg_durak.tables.live import LiveTable
from tg_durak.tables.screens import ChatLinks

SEAT = {user: seat for seat, (user, _) in enumerate(PEOPLE)}


@pytest.fixture
def world(store: Store) -> World:
    return service(store, FakeClock(START))


async def yes() -> bool:
    return True


async def no() -> bool:
    return False


def live(world: World, table_id: int) -> LiveTable:
    return world.tables.core.tables[table_id]


def last_text(world: World, user_id: int) -> str:
    return world.shown_to(user_id)[-1].screen.text


def group_texts(world: World, table_id: int) -> list[str]:
    return [s.screen.text for s in world.publisher.shown if s.key == (table_id, None)]


async def run_clock(world: World, table_id: int, until: object, steps: int = 300) -> None:
    """Ring the table's timer, nobody tapping, until `until()` holds."""
    for _ in range(steps):
        if until():
            return
        await world.timer.ring(table_id, world.timer.armed[table_id])
    raise AssertionError("the clock never got there")


# ---- away (R10.2) ----------------------------------------------------------------------------


async def test_people_who_time_out_are_played_by_computers_until_each_taps_again(
    world: World
) -> None:
    table_id = await three_people(world)
    table = live(world, table_id)
    await run_clock(world, table_id, lambda: len(table.game.away) >= 2)
    away = sorted(table.away)
    assert len(away) == 2
    here = next(user for user, _ in PEOPLE if SEAT[user] not in away)
    assert "away" in last_text(world, here), "the others' screens say so"
    assert "a computer plays for you" in last_text(world, PEOPLE[away[0]][0])
    assert "away" in group_texts(world, table_id)[-1]

    asked = len(world.computers.asked)
    await run_clock(world, table_id, lambda: len(world.computers.asked) > asked + 3)
    assert {seat for _, seat, _ in world.computers.asked[asked:]} <= table.away, \
        "computers play only for the away (the third may have gone away meanwhile)"
    away = sorted(table.away)

    back_user = PEOPLE[away[0]][0]
    await world.tables.moves.tap(back_user, table_id, table.game.version, Pass())
    assert table.away == set(away[1:]), "one taps again, the others stay away"
    assert away[0] not in table.reactions
    assert "a computer plays for you" not in last_text(world, back_user)
    asked = len(world.computers.asked)
    # Until his turn runs out again, he plays his seat himself.
    await run_clock(world, table_id, lambda: table.finished or away[0] in table.away
                    or len(world.computers.asked) > asked + 5)
    played = [seat for _, seat, _ in world.computers.asked[asked:]]
    assert away[0] not in played


# ---- leaving ---------------------------------------------------------------------------------


async def test_leaving_hands_the_seat_to_a_computer_for_good(world: World) -> None:
    table_id = await three_people(world)
    assert await world.tables.absences.leave_game(ANN, chat_id=-1) == refused("leave.none")
    assert await world.tables.absences.leave_game(ANN) == Answer("leave.done", {"name": "Ann"})

    row, _ = await stored(world.store, table_id)
    assert [s.status for s in row.seats] == ["left", "playing", "playing"]
    assert "no longer in this game" in last_text(world, ANN)
    shown = len(world.shown_to(ANN))
    assert await world.tables.running_table_of(ANN) is None, "free to play elsewhere"
    assert await world.tables.moves.tap(ANN, table_id, 0, Pass()) == Answer("tap.not_seated",
                                                                          alert=True)
    assert "left: a computer plays the seat" in last_text(world, BOB)
    assert "left: a computer plays the seat" in group_texts(world, table_id)[-1]

    await run_clock(world, table_id, lambda: any(s == 0 for _, s, _ in world.computers.asked))
    assert len(world.shown_to(ANN)) == shown, "his message is his note from now on"
    assert await world.tables.absences.leave_game(ANN) == refused("leave.none")


async def test_a_table_nobody_plays_any_more_ends_with_everyone_resigned(world: World) -> None:
    table_id = await three_people(world)
    for user in (ANN, BOB):
        assert (await world.tables.absences.leave_game(user)).key == "leave.done"
    assert table_id in world.timer.armed
    await world.tables.absences.leave_game(CID)

    row, _ = await stored(world.store, table_id)
    assert row.status == "finished"
    assert table_id not in world.timer.armed
    for user in (ANN, BOB, CID):
        assert (await world.store.results.stats(user)).resigned == 1
    assert set(await world.store.results.ratings([ANN, BOB, CID])) == {ANN, BOB, CID}, "rated, tied"


async def test_leaving_costs_the_leaver_and_not_the_others(world: World) -> None:
    table_id = await three_people(world)
    await world.tables.absences.leave_game(ANN)
    results = {user: outcome
               for user, outcome, _ in world.tables.core.results(live(world, table_id))}
    assert results == {ANN: "resigned", BOB: "safe", CID: "safe"}


# ---- removing --------------------------------------------------------------------------------


async def test_only_a_player_who_is_away_is_removed_by_the_host_or_an_admin(
    world: World
) -> None:
    table_id = await three_people(world)
    chat = -100
    assert await world.tables.absences.kick(-1, BOB, ANN, yes) == refused("kick.no_game")
    assert await world.tables.absences.kick(chat, BOB, ANN, no) == refused("kick.host_only")
    assert await world.tables.absences.kick(chat, BOB, ANN, yes) == refused("kick.not_away",
                                                                            name="Bob")
    assert await world.tables.absences.kick_choices(chat, ANN, yes) == (table_id, [])

    await world.tables.absences.mark_unreachable(BOB)
    table_seats = live(world, table_id).row.seats
    assert await world.tables.absences.kick_choices(chat, ANN, yes) == (table_id, [table_seats[1]])
    assert await world.tables.absences.kick(chat, BOB, ANN, yes, table_id + 1) == refused(
        "kick.no_game")
    assert await world.tables.absences.kick(chat, BOB, ANN, yes, table_id) == Answer(
        "kick.done", {"name": "Bob"})
    row, _ = await stored(world.store, table_id)
    assert [s.status for s in row.seats] == ["playing", "kicked", "playing"]
    assert "removed from this game" in last_text(world, BOB)
    assert await world.tables.absences.kick(chat, BOB, ANN, yes) == refused("kick.not_playing")


# ---- out of reach (403) ----------------------------------------------------------------------


async def test_a_person_who_blocked_the_bot_is_away_and_the_group_is_told_once(
    store: Store
) -> None:
    world = service(store, FakeClock(START), links=ChatLinks("durak_bot"))
    table_id = await three_people(world)
    await world.store.users.ensure(BOB, "Bob")
    table = live(world, table_id)
    await world.tables.chats.chat_refused(BOB)
    await world.tables.chats.chat_refused(BOB)
    notices = [s for s in world.publisher.shown if s.key == ("unreachable", table_id, BOB)]
    assert len(notices) == 1
    [[button]] = notices[0].screen.keyboard
    assert button.url == "https://t.me/durak_bot"
    assert "Bob" in notices[0].screen.text and notices[0].chat_id == -100
    assert table.away == {1}
    assert not (await world.store.users.get(BOB)).reachable

    shown = len(world.shown_to(BOB))
    await world.tables.moves.tap(ANN, table_id, 0, Pass())
    assert len(world.shown_to(BOB)) == shown, "nothing is sent where it cannot arrive"
    assert "away" in last_text(world, ANN)

    await world.tables.moves.tap(BOB, table_id, 0, Pass())   # he opened the bot and tapped
    assert table.away == frozenset()
    assert len(world.shown_to(BOB)) > shown
    await world.tables.chats.chat_refused(BOB)
    assert len([s for s in world.publisher.shown
                if s.key == ("unreachable", table_id, BOB)]) == 1, "told once"


async def test_unblocking_the_bot_brings_him_back(world: World) -> None:
    table_id = await three_people(world)
    await world.store.users.ensure(CID, "Cid")
    await world.tables.absences.mark_unreachable(CID)
    assert live(world, table_id).away == {2}
    await world.tables.absences.mark_reachable(CID)
    assert live(world, table_id).away == frozenset()
    assert (await world.store.users.get(CID)).reachable


# ---- the chat ----------------------------------------------------------------------------------


async def test_a_supergroup_keeps_its_table_and_gets_a_fresh_group_message(world: World) -> None:
    table_id = await three_people(world)
    await world.tables.chats.message_sent((table_id, None), -100, 7)
    await world.tables.chats.chat_migrated(-100, -1009)
    await world.tables.chats.chat_migrated(-100, -1009)   # the update and the publisher's error

    row, _ = await stored(world.store, table_id)
    assert row.chat_id == -1009
    fresh = world.publisher.shown[-1]
    assert (fresh.key, fresh.chat_id, fresh.message_id) == ((table_id, None), -1009, None)
    assert [(m.chat_id, m.message_id) for m in await world.store.messages.of_table(table_id)
            if m.user_id is None] == [(-1009, 7)], "until the fresh message replaces it"
    assert await world.tables.absences.group_table(-1009) is live(world, table_id)


async def test_a_removed_bot_plays_the_table_on_in_private(world: World) -> None:
    table_id = await three_people(world)
    await world.tables.chats.chat_refused(-100)
    before = len(group_texts(world, table_id))
    await world.tables.moves.tap(ANN, table_id, 0, Pass())
    await run_clock(world, table_id, lambda: live(world, table_id).game.version > 3)
    assert len(group_texts(world, table_id)) == before
    assert len(world.shown_to(BOB)) > 1



async def test_a_removed_bot_closes_the_chats_lobby(world: World) -> None:
    await world.store.users.ensure(ANN, "Ann")
    await world.store.users.set_reachable(ANN, True)
    ann = await world.store.users.get(ANN)
    assert await world.tables.lobbies.open(-200, ann, "Ann") == Answer()
    lobby = await world.store.lobbies.open_in_chat(-200)
    await world.tables.chats.bot_removed(-200)
    assert (await world.store.tables.get(lobby.id)).status == "aborted"
    assert "removed from the group" in last_text(world, ANN)
    assert await world.tables.running_table_of(ANN) is None
