"""Results and the ratings they move: written when a table ends, rebuilt from the results, read
back as stats, records and a chat's table of players."""

from collections.abc import Callable, Mapping, Sequence

import pytest

from tests.store.helpers import integrity_error, raw, running_table
from tg_durak.i18n.translate import translator
from tg_durak.play.ratings import Rating, rate
from tg_durak.play.rows import Rebuilt, SeatRow, Stats, TableChange
from tg_durak.render.standings import OWN_LINE_MARK, leaderboard_screen, record_screen
from tg_durak.storage import Store

CHAT, OTHER_CHAT = -100, -200
Result = tuple[int, str, int]


async def running(store: Store, people: Sequence[int], chat: int = CHAT,
                  computers: int = 0) -> int:
    seats = [SeatRow(i, uid, f"Seat{uid}") for i, uid in enumerate(people)]
    seats += [SeatRow(len(seats) + i, None, "", "easy") for i in range(computers)]
    kind = "private" if chat > 0 else "group"
    table = await store.tables.create(chat, kind, "running", {}, seats, {"at": 0})
    return table.id


async def played(store: Store, results: list[Result], chat: int = CHAT, computers: int = 0,
                 *, resigned: bool = False) -> int:
    """A table that finished with `results`: through its last move, or a resignation."""
    table_id = await running(store, [uid for uid, _, _ in results], chat, computers)
    if resigned:
        await store.tables.finish(table_id, "aborted", results)
    else:
        await store.tables.record(TableChange(table_id, 0, [{"last": 1}], {"at": 1}, "finished",
                                              results))
    return table_id


def rating_rows(db_path: str) -> tuple[list[tuple], list[tuple]]:
    return (raw(db_path, "SELECT * FROM ratings ORDER BY user_id"),
            raw(db_path, "SELECT * FROM rating_history ORDER BY table_id, user_id"))


# -- written with the results ---------------------------------------------------------------


async def test_a_finished_table_of_people_moves_their_ratings(store: Store,
                                                              db_path: str) -> None:
    table_id = await played(store, [(1, "safe", 1), (2, "durak", 2)], computers=2)
    ratings = await store.results.ratings([1, 2, 3])
    assert set(ratings) == {1, 2}
    assert ratings == rate([(1, "safe", 1), (2, "durak", 2)], {})
    assert ratings[1].shown > 1000 > ratings[2].shown
    shown = raw(db_path, "SELECT user_id, shown, updated_at FROM ratings ORDER BY user_id")
    assert [(u, s) for u, s, _ in shown] == [(1, ratings[1].shown), (2, ratings[2].shown)]
    finished_at = raw(db_path, "SELECT finished_at FROM tables WHERE id = ?", (table_id,))
    assert shown[0][2] == shown[1][2] == finished_at[0][0] > 0


async def test_games_against_computers_move_no_rating(store: Store, db_path: str) -> None:
    await played(store, [(1, "durak", 3)], chat=1, computers=2)
    await played(store, [(1, "resigned", 0)], chat=1, computers=1, resigned=True)
    assert await store.results.ratings([1]) == {}
    assert rating_rows(db_path) == ([], [])
    assert (await store.results.stats(1)).games == 2


async def test_a_running_table_moves_nothing(store: Store, db_path: str) -> None:
    table_id = await running(store, [1, 2])
    await store.tables.record(TableChange(table_id, 0, [{"n": 1}], {"at": 1}))
    assert rating_rows(db_path) == ([], [])
    assert raw(db_path, "SELECT finished_at FROM tables") == [(None,)]


def failing(error: Exception) -> Callable[..., Mapping[int, Rating]]:
    def rate_and_fail(results: Sequence[Result], current: Mapping[int, Rating]):
        raise error
    return rate_and_fail


def rating_a_stranger(results: Sequence[Result],
                      current: Mapping[int, Rating]) -> dict[int, Rating]:
    """Rates someone without a result at the table: the history's key refuses the row."""
    return {**rate(results, current), 99: Rating()}


@pytest.mark.parametrize("resigned", [False, True])
@pytest.mark.parametrize("bad_rate", [failing(RuntimeError("boom")), rating_a_stranger])
async def test_results_and_ratings_stand_or_fall_together(
    store: Store, db_path: str, resigned: bool, bad_rate: Callable
) -> None:
    await played(store, [(1, "safe", 1), (2, "durak", 2)])
    before = rating_rows(db_path)
    table_id = await running(store, [1, 2])
    results = [(1, "durak", 2), (2, "safe", 1)]
    badly = await Store.open(db_path, rate=bad_rate)   # the same database, rated badly
    try:
        with pytest.raises((RuntimeError, integrity_error(db_path))):
            if resigned:
                await badly.tables.finish(table_id, "aborted", results)
            else:
                await badly.tables.record(TableChange(table_id, 0, [{"n": 1}], {"at": 1},
                                                      "finished", results))
    finally:
        await badly.close()
    assert raw(db_path, "SELECT * FROM results WHERE table_id = ?", (table_id,)) == []
    assert rating_rows(db_path) == before
    table = await store.tables.get(table_id)
    assert (table.status, table.version) == ("running", 0)


async def test_a_table_moves_ratings_once(store: Store, db_path: str) -> None:
    table_id = await played(store, [(1, "safe", 1), (2, "durak", 2)], resigned=True)
    after_first = rating_rows(db_path)
    closed = raw(db_path, "SELECT finished_at FROM tables WHERE id = ?", (table_id,))
    await store.tables.finish(table_id, "aborted", [(1, "safe", 1), (2, "durak", 2)])
    assert rating_rows(db_path) == after_first
    assert raw(db_path, "SELECT finished_at FROM tables WHERE id = ?", (table_id,)) == closed
    assert (await store.results.ratings([1]))[1].games == 1


async def test_results_and_stats(store: Store) -> None:
    assert await store.results.stats(1) == Stats(games=0, durak=0, safe=0, draws=0, resigned=0)
    for outcome in ("durak", "safe", "safe", "draw", "resigned"):
        table_id = await running_table(store)
        await store.tables.finish(table_id, "finished", [(1, outcome, 1), (2, "safe", 2)])

    assert await store.results.stats(1) == Stats(games=5, durak=1, safe=2, draws=1, resigned=1)
    assert (await store.results.stats(2)).games == 5
    table = await store.tables.get(table_id)
    assert table is not None
    assert table.status == "finished"
    with pytest.raises(ValueError, match="outcome"):
        await store.tables.finish(table_id, "finished", [(1, "won", 1)])


# -- rebuilt from the results ---------------------------------------------------------------


async def a_season(store: Store) -> None:
    """Rated and unrated tables, in two chats, every outcome, both ways of finishing."""
    await played(store, [(1, "safe", 1), (2, "safe", 2), (3, "durak", 3)])
    await played(store, [(1, "durak", 2)], chat=1, computers=1)
    await played(store, [(2, "draw", 1), (3, "draw", 1)], computers=1)
    await played(store, [(1, "safe", 0), (4, "resigned", 0)], chat=OTHER_CHAT, resigned=True)
    await played(store, [(3, "safe", 1), (4, "safe", 2), (1, "safe", 3), (2, "durak", 4)])
    await played(store, [(5, "safe", 1)], chat=5, computers=3)
    await played(store, [(4, "safe", 2), (3, "durak", 4)], chat=OTHER_CHAT, computers=2)


async def test_rebuild_equals_what_the_games_wrote(store: Store, db_path: str) -> None:
    await a_season(store)
    incremental = rating_rows(db_path)
    assert len(incremental[0]) == 4 and len(incremental[1]) == 13

    assert await store.results.rebuild_ratings() == Rebuilt(people=4, tables=5)
    assert rating_rows(db_path) == incremental  # every float and time, exactly

    raw(db_path, "UPDATE ratings SET mu = 0, shown = 5000 WHERE user_id = 2")
    raw(db_path, "DELETE FROM rating_history WHERE user_id = 3")
    raw(db_path, "INSERT INTO ratings VALUES (77, 1, 1, 1, 1, 0)")
    assert await store.results.rebuild_ratings() == Rebuilt(people=4, tables=5)
    assert rating_rows(db_path) == incremental


async def test_rebuild_follows_the_closing_order_not_the_ids(store: Store,
                                                             db_path: str) -> None:
    first = await running(store, [1, 2])
    second = await played(store, [(1, "safe", 1), (2, "durak", 2)])
    await store.tables.finish(first, "aborted", [(1, "resigned", 0), (2, "safe", 0)])
    incremental = rating_rows(db_path)
    assert first < second
    await store.results.rebuild_ratings()
    assert rating_rows(db_path) == incremental


# -- read back --------------------------------------------------------------------------------


async def test_a_players_record_keeps_people_and_computers_apart(store: Store) -> None:
    await a_season(store)
    record = await store.results.player_record(1)
    assert record.people == Stats(games=3, durak=0, safe=3, draws=0, resigned=0)
    assert record.computers == Stats(games=1, durak=1, safe=0, draws=0, resigned=0)
    assert record.rating == (await store.results.ratings([1]))[1]
    assert record.rating.games == 3
    assert (await store.results.player_record(4)).people.resigned == 1
    alone = await store.results.player_record(5)
    assert alone.rating is None and alone.people.games == 0 and alone.computers.games == 1
    assert await store.results.stats(1) == Stats(games=4, durak=1, safe=3, draws=0, resigned=0)

    text = record_screen(record, translator("en")).text
    assert f"Your rating: {record.rating.shown}" in text
    assert "3 games, durak 0 times (0%), draws: 0" in text
    assert "Against computers:</b> 1 game\nSafe: 0 · Durak: 1" in text
    ru = record_screen(await store.results.player_record(3), translator("ru")).text
    assert "4 партии, в дураках 2 раза (50\xa0%), ничьи: 1" in ru
    uk = record_screen(alone, translator("uk")).text
    assert uk.startswith("<b>Твій рейтинг:</b> поки немає.")
    assert "З людьми" not in uk and "<b>З комп’ютером:</b> 1 партія" in uk


async def test_the_chats_table_the_top_ten_and_the_askers_line(store: Store) -> None:
    asker = 12
    for winner in range(1, 12):  # everyone beats the asker once: the asker is last of 12
        await played(store, [(winner, "safe", 1), (asker, "durak", 2)])
    await played(store, [(50, "safe", 1), (51, "durak", 2)], chat=OTHER_CHAT)
    await played(store, [(52, "safe", 1)], chat=CHAT, computers=1)  # not a rated game
    await store.users.ensure(3, "Cat <the best> & co")

    rows = await store.results.leaderboard(CHAT, asker)
    assert [r.position for r in rows] == [*range(1, 11), 12]
    assert rows[-1].user_id == asker and rows[-1].durak == 11 and rows[-1].games == 11
    assert {r.user_id for r in rows} <= set(range(1, 13))
    ratings = await store.results.ratings(range(1, 13))
    assert [r.rating for r in rows] == [ratings[r.user_id].shown for r in rows]
    assert [r.rating for r in rows] == sorted((r.rating for r in rows), reverse=True)
    names = {r.user_id: r.name for r in rows}
    assert names.get(3, "Cat <the best> & co") == "Cat <the best> & co"
    assert names[asker] == "Seat12"  # never wrote to the bot: the name at his seat

    top = await store.results.leaderboard(CHAT, rows[0].user_id)
    assert [r.position for r in top] == list(range(1, 11))
    assert len(await store.results.leaderboard(CHAT, 999)) == 10
    assert len(await store.results.leaderboard(CHAT, asker, top=3)) == 4
    assert await store.results.leaderboard(-300, asker) == []
    assert [r.user_id for r in await store.results.leaderboard(OTHER_CHAT, 1)] == [50, 51]

    text = leaderboard_screen(rows, asker, translator("en")).text
    lines = text.split("\n")
    assert lines[0].startswith("<b>Players of this chat</b>")
    assert lines[-2] == "…"
    assert lines[-1] == (f"{OWN_LINE_MARK} 12. Seat12 — <b>{rows[-1].rating}</b> · 11 games · "
                         "durak 100%")
    assert sum(OWN_LINE_MARK in line for line in lines) == 1
    cat = next(r for r in await store.results.leaderboard(CHAT, 3, top=12) if r.user_id == 3)
    cat_line = leaderboard_screen([cat], 3, translator("pl")).text.split("\n")[-1]
    assert "Cat &lt;the best&gt; &amp; co" in cat_line and "1 partia" in cat_line
    assert "W tym czacie" in leaderboard_screen([], 3, translator("pl")).text
