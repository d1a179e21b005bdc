"""Privacy in the store, on SQLite and PostgreSQL: a forgotten person's name, language and
ratings go while everyone else's records stay as they were (the check passes, a rating rebuild
gives the others the same); the logs of tables that ended long ago are pruned, by one process a
day, and the check still reads those tables."""

from __future__ import annotations

from functools import partial

import pytest

from tests.helpers import stored_games
from tests.helpers.stored_games import GROUP, START
from tests.store.helpers import integrity_error, raw, table_names
from tg_durak.i18n.translate import translator
from tg_durak.ops.check import check
from tg_durak.ops.pruning import DAY, prune_today
from tg_durak.play.ratings import rate
from tg_durak.play.rows import SeatRow, TableChange
from tg_durak.render.standings import leaderboard_screen
from tg_durak.storage import Store
from tg_durak.storage.privacy import TOMBSTONES_FROM, is_tombstone

ANN, BOB, CID, DAN = 11, 12, 13, 14
NAMES = {ANN: "Annabel Lee", BOB: "Bob", CID: "Cid", DAN: "Dan"}
played = partial(stored_games.played, names=NAMES)


def text_holding(db_path: str, needle: str) -> list[str]:
    """Every table.column whose text holds `needle` anywhere (every table, every column)."""
    found = []
    for table in sorted(table_names(db_path)):
        for row in raw(db_path, f"SELECT * FROM {table}"):
            if any(isinstance(value, str) and needle.lower() in value.lower() for value in row):
                found.append(f"{table}: {row}")
    return found


async def ratings_of(store: Store, people: list[int]) -> dict[int, tuple[float, float, int]]:
    return {user: (r.mu, r.sigma, r.games)
            for user, r in (await store.results.ratings(people)).items()}


@pytest.fixture
async def rated(db_path: str):
    s = await Store.open(db_path, rate=rate)
    yield s
    await s.close()


async def test_a_forgotten_person_leaves_no_name_and_everyone_else_keeps_his_record(
        rated: Store, db_path: str) -> None:
    store = rated
    for user in NAMES:
        await store.users.ensure(user, NAMES[user], "pl")
        await store.users.set_settings(user, {"level": "hard"})
    tables = [await played(store, [ANN, BOB, CID], seed=1),
              await played(store, [BOB, ANN], seed=2, computers=1),
              await played(store, [ANN], seed=3, computers=2),
              await played(store, [CID, DAN, ANN, BOB], seed=4),
              await played(store, [BOB, CID], seed=5)]
    await store.messages.set(tables[2], ANN, ANN, 77)
    lobby = await store.lobbies.create(GROUP - 1, ANN, {}, invite="inv", expires_at=START,
                                       language="pl")
    others = [BOB, CID, DAN]
    before = await ratings_of(store, others)
    stats_before = {user: await store.results.player_record(user) for user in others}
    assert (await check(store)).problems == []

    tombstone = await store.privacy.forget(ANN)

    assert tombstone is not None and is_tombstone(tombstone)
    assert tombstone == TOMBSTONES_FROM - 1
    assert await store.users.get(ANN) is None
    assert text_holding(db_path, "Annabel") == []
    for table in ("seats", "results", "rating_history", "ratings", "messages"):
        column = "viewer" if table == "messages" else "user_id"
        assert raw(db_path, f"SELECT COUNT(*) FROM {table} WHERE {column} = ?", (ANN,)) == [(0,)]
    assert raw(db_path, "SELECT COUNT(*) FROM tables WHERE chat_id = ? OR host_id = ?",
               (ANN, ANN)) == [(0,)]
    assert (await store.tables.get(lobby.id)).host_id == tombstone
    # His statistics are gone; the tombstone plays on in the others' games.
    record = await store.results.player_record(ANN)
    assert record.rating is None and record.people.games == record.computers.games == 0
    assert (await store.results.player_record(tombstone)).people.games == 3
    assert {user: await store.results.player_record(user) for user in others} == stats_before
    assert (await check(store)).problems == []
    assert await ratings_of(store, others) == before
    # The chat's table of players keeps his line, as "a former player".
    standings = await store.results.leaderboard(GROUP, BOB)
    assert {row.user_id for row in standings} == {tombstone, BOB, CID, DAN}
    top = leaderboard_screen(standings, BOB, translator("en")).text
    assert "a former player" in top and "Annabel" not in top

    await store.results.rebuild_ratings()
    assert await ratings_of(store, others) == before
    assert (await check(store)).problems == []

    # A second person forgotten gets a tombstone of his own; forgetting twice erases nothing
    # more and names nobody.
    assert await store.privacy.forget(BOB) == TOMBSTONES_FROM - 2
    assert await store.privacy.forget(ANN) is None
    assert (await check(store)).problems == []
    await store.results.rebuild_ratings()
    assert await ratings_of(store, [CID, DAN]) == {u: before[u] for u in (CID, DAN)}


async def test_a_person_known_only_by_his_row_is_erased_without_a_tombstone(
        store: Store, db_path: str) -> None:
    await store.users.ensure(DAN, "Dan", "uk")
    assert await store.privacy.forget(DAN) is None
    assert await store.users.get(DAN) is None
    assert raw(db_path, "SELECT COUNT(*) FROM users") == [(0,)]
    assert raw(db_path, "SELECT value FROM meta WHERE key = 'forgotten'") == []


async def test_the_ended_tables_logs_are_pruned_and_the_check_still_reads_them(
        store: Store, db_path: str) -> None:
    old = await played(store, [ANN, BOB], seed=6)
    private = await played(store, [CID], seed=7, computers=1)
    running = await played(store, [DAN, BOB], seed=8, steps=6)
    raw(db_path, "UPDATE tables SET finished_at = ? WHERE id IN (?, ?)", (START, old, private))
    fresh = await played(store, [ANN, CID], seed=9)
    versions = {t: (await store.tables.get(t)).version for t in (old, private, fresh)}

    assert await store.privacy.prune(before=START + 1) == 2

    assert await store.tables.log(old) == [] and await store.tables.log(private) == []
    assert len(await store.tables.log(fresh)) == versions[fresh] > 0
    assert len(await store.tables.log(running)) == 6
    assert await store.privacy.pruned() == {old, private}
    # Their rows, results and versions stay; the check reads their end from the snapshot.
    assert (await store.tables.get(old)).version == versions[old]
    assert raw(db_path, "SELECT COUNT(*) FROM results WHERE table_id = ?", (old,)) == [(2,)]
    assert (await check(store)).problems == []
    assert await store.privacy.prune(before=START + 1) == 0   # nothing left to prune


async def test_a_running_tables_log_stays_append_only(store: Store, db_path: str) -> None:
    running = await played(store, [DAN, BOB], seed=8, steps=6)
    with pytest.raises(integrity_error(db_path)):
        raw(db_path, "DELETE FROM actions WHERE table_id = ?", (running,))
    with pytest.raises(integrity_error(db_path)):
        raw(db_path, "UPDATE actions SET entry = '[]' WHERE table_id = ?", (running,))
    assert len(await store.tables.log(running)) == 6


async def test_the_check_finds_a_pruned_log_that_was_not_all_deleted(
        store: Store, db_path: str) -> None:
    table_id = await played(store, [ANN, BOB], seed=6)
    raw(db_path, "UPDATE tables SET pruned_at = ? WHERE id = ?", (START, table_id))
    problems = [str(p) for p in (await check(store)).problems]
    assert problems == [f"table {table_id}: its log was pruned but "
                        f"{len(await store.tables.log(table_id))} entries remain"]


async def test_one_process_a_day_claims_the_pruning(db_path: str) -> None:
    first, second = await Store.open(db_path), await Store.open(db_path)
    try:
        assert await first.privacy.claim_pruning(20_000)
        assert not await second.privacy.claim_pruning(20_000)
        assert not await first.privacy.claim_pruning(20_000)
        assert await second.privacy.claim_pruning(20_001)
        assert not await first.privacy.claim_pruning(20_000)
    finally:
        await first.close()
        await second.close()


async def test_the_daily_job_prunes_once_a_day_whichever_process_asks_first(
        db_path: str) -> None:
    first, second = await Store.open(db_path), await Store.open(db_path)
    try:
        old = await played(first, [ANN, BOB], seed=6)
        recent = await played(first, [CID, DAN], seed=7)
        now = START + 40 * DAY
        raw(db_path, "UPDATE tables SET finished_at = ? WHERE id = ?", (now - 31 * DAY, old))
        raw(db_path, "UPDATE tables SET finished_at = ? WHERE id = ?", (now - 29 * DAY, recent))

        assert await prune_today(first, 30, now) == 1
        assert await prune_today(second, 30, now + 3600) is None   # the day is taken
        assert await first.privacy.pruned() == {old}
        # The next day, the other process may have it: the recent table is old enough then.
        assert await prune_today(second, 30, now + 2 * DAY) == 1
        assert await first.privacy.pruned() == {old, recent}
        assert (await check(first)).problems == []
    finally:
        await first.close()
        await second.close()


async def test_a_rebuild_rates_a_tie_with_a_forgotten_person_as_it_was_rated(
        rated: Store) -> None:
    """openskill takes tied players in the order given (by user id): Cid's tombstone sorts
    before Ann and Bob where his id sorted after them, so the rebuild must rate each table in
    the order it was rated in, or Bob's μ differs in its last digits (found by a search)."""
    store = rated
    games = [[(ANN, "safe", 1), (BOB, "durak", 3), (CID, "safe", 2)],
             [(ANN, "safe", 2), (BOB, "safe", 1), (CID, "durak", 3)],
             [(ANN, "safe", 1), (BOB, "safe", 2), (CID, "durak", 3)],
             [(ANN, "resigned", 0), (BOB, "safe", 1), (CID, "resigned", 0)]]
    for results in games:
        seats = [SeatRow(i, user, NAMES[user]) for i, (user, _, _) in enumerate(results)]
        table = await store.tables.create(GROUP, "group", "running", {}, seats, {"at": 0})
        await store.tables.record(TableChange(table.id, 0, [["end"]], {"at": 1}, "finished",
                                              results))
    before = await ratings_of(store, [ANN, BOB])
    await store.privacy.forget(CID)
    await store.results.rebuild_ratings()
    assert await ratings_of(store, [ANN, BOB]) == before
