import asyncio
import sqlite3
from pathlib import Path

import pytest

from tg_durak.play.records import MessageRow, SeatRow, Stats, TableChange
from tg_durak.storage import CorruptRow, SchemaTooNew, StaleVersion, Store
from tg_durak.storage import migrations as migrations_module

# The package's migration files, in order; other features add theirs after these.
MIGRATIONS = sorted(
    p.name for p in Path(migrations_module.__file__).with_name("migrations").glob("*.sql")
)
NEWEST = len(MIGRATIONS)
ANN = SeatRow(seat=0, user_id=1, name="Ann")
BOB = SeatRow(seat=1, user_id=2, name="Bob")
CPU = SeatRow(seat=1, user_id=None, name="Computer", level="strong")


async def running_table(store: Store, chat_id: int = 10) -> int:
    table = await store.tables.create(chat_id, "private", "running", {"deck": 36}, [ANN, CPU],
                                     {"log": 0})
    return table.id


def raw(db_path: str, sql: str, params: tuple = ()) -> list[tuple]:
    """Run SQL behind the store's back (to corrupt or inspect the file)."""
    with sqlite3.connect(db_path) as conn:
        return conn.execute(sql, params).fetchall()


# -- migrations -----------------------------------------------------------------------------


async def test_migrations_are_applied_once_and_recorded(store: Store, db_path: str) -> None:
    assert MIGRATIONS[:2] == ["0001_init.sql", "0002_ratings.sql"]
    assert await store.schema_version() == NEWEST
    rows = raw(db_path, "SELECT version, name, applied_at FROM schema_migrations ORDER BY version")
    assert [(v, n) for v, n, _ in rows] == list(enumerate(MIGRATIONS, 1))
    assert all(at > 0 for _, _, at in rows)


async def test_reopening_keeps_data_and_applies_nothing_again(store: Store, db_path: str) -> None:
    await store.users.ensure(1, "Ann")
    before = raw(db_path, "SELECT * FROM schema_migrations")
    await store.close()

    again = await Store.open(db_path)
    try:
        assert raw(db_path, "SELECT * FROM schema_migrations") == before
        user = await again.users.get(1)
        assert user is not None
        assert user.name == "Ann"
    finally:
        await again.close()


async def test_a_newer_schema_is_refused(store: Store, db_path: str) -> None:
    await store.close()
    future = NEWEST + 5
    raw(db_path, f"INSERT INTO schema_migrations VALUES ({future}, '{future:04}_future.sql', 0)")
    with pytest.raises(SchemaTooNew,
                       match=rf"database schema {future} is newer than this bot \({NEWEST}\)"):
        await Store.open(db_path)


async def test_each_migration_is_its_own_transaction(tmp_path: Path, db_path: str) -> None:
    folder = tmp_path / "migrations"
    folder.mkdir()
    (folder / "0001_a.sql").write_text("CREATE TABLE a (x INTEGER);")
    (folder / "0002_b.sql").write_text("CREATE TABLE b (x INTEGER);\nCREATE TABLE a (x INTEGER);")

    with pytest.raises(RuntimeError, match=r"migration 0002_b\.sql failed"):
        await Store.open(db_path, migrations=folder)

    names = {name for (name,) in raw(db_path, "SELECT name FROM sqlite_master")}
    assert "a" in names
    assert "b" not in names  # the failed migration left nothing behind
    assert raw(db_path, "SELECT version FROM schema_migrations") == [(1,)]


async def test_migration_scripts_may_hold_triggers_and_semicolons_in_text(
    tmp_path: Path, db_path: str
) -> None:
    folder = tmp_path / "migrations"
    folder.mkdir()
    (folder / "0001_a.sql").write_text(
        "-- a comment; with a semicolon\n"
        "CREATE TABLE a (x TEXT DEFAULT 'p;q');\n"
        "CREATE TRIGGER t BEFORE DELETE ON a BEGIN SELECT RAISE(ABORT, 'no; never'); END;\n"
        "INSERT INTO a DEFAULT VALUES"
    )
    store = await Store.open(db_path, migrations=folder)
    await store.close()
    assert raw(db_path, "SELECT x FROM a") == [("p;q",)]
    with pytest.raises(sqlite3.IntegrityError, match="no; never"):
        raw(db_path, "DELETE FROM a")


async def test_wal_and_foreign_keys(store: Store, db_path: str) -> None:
    assert raw(db_path, "PRAGMA journal_mode") == [("wal",)]
    with pytest.raises(sqlite3.IntegrityError, match="FOREIGN KEY"):
        await store.messages.set(999, 1, 1, 10)
    with pytest.raises(LookupError):
        await store.tables.finish(999, "aborted", [])


# -- users ----------------------------------------------------------------------------------


async def test_users(store: Store) -> None:
    assert await store.users.get(1) is None
    assert await store.users.ensure(1, "Ann") == (await store.users.get(1))
    renamed = await store.users.ensure(1, "Anna")
    assert renamed.name == "Anna"
    assert renamed.language is None
    assert renamed.settings == {}

    await store.users.set_language(1, "uk")
    await store.users.set_settings(1, {"cards": "emoji", "name": "Ганна"})
    user = await store.users.get(1)
    assert user is not None
    assert user.language == "uk"
    assert user.settings == {"cards": "emoji", "name": "Ганна"}

    with pytest.raises(LookupError):
        await store.users.set_language(2, "pl")


# -- tables ---------------------------------------------------------------------------------


async def test_create_table(store: Store) -> None:
    table = await store.tables.create(-100, "group", "lobby", {"transfer": True}, [ANN], None)
    assert (table.chat_id, table.kind, table.status, table.version) == (-100, "group", "lobby", 0)
    assert table.options == {"transfer": True}
    assert table.snapshot is None
    assert table.seats == (ANN,)

    table = await store.tables.create(1, "private", "running", {}, [CPU, ANN], {"deal": 1})
    started = await store.tables.get(table.id)
    assert started is not None
    assert started.status == "running"
    assert started.snapshot == {"deal": 1}
    assert started.seats == (ANN, CPU)  # in seat order
    assert started.version == 0

    with pytest.raises(ValueError, match="a new table's status"):
        await store.tables.create(1, "private", "finished", {}, [ANN], {"deal": 2})


async def test_bad_arguments_are_refused_before_writing(store: Store) -> None:
    with pytest.raises(ValueError, match="kind"):
        await store.tables.create(1, "public", "lobby", {}, [ANN], None)
    with pytest.raises(ValueError, match="seat numbers repeat"):
        await store.tables.create(1, "private", "lobby", {}, [ANN, ANN], None)
    assert await store.tables.for_user(ANN.user_id) is None


async def test_record_appends_to_the_log_in_order(store: Store) -> None:
    table_id = await running_table(store)
    assert await store.tables.record(TableChange(table_id, 0, [{"n": 1}, {"n": 2}], {"at": 2})) == 2
    assert await store.tables.record(TableChange(table_id, 2, [{"n": 3}], {"at": 3})) == 3
    assert await store.tables.record(TableChange(table_id, 3, [], {"at": "timer"})) == 3

    assert await store.tables.log(table_id) == [{"n": 1}, {"n": 2}, {"n": 3}]
    table = await store.tables.get(table_id)
    assert table is not None
    assert (table.version, table.snapshot) == (3, {"at": "timer"})


async def test_stale_record_writes_nothing(store: Store) -> None:
    table_id = await running_table(store)
    await store.tables.record(TableChange(table_id, 0, [{"n": 1}], {"at": 1}))

    with pytest.raises(StaleVersion, match="at version 1, not 0"):
        await store.tables.record(TableChange(table_id, 0, [{"n": "late"}], {"at": "late"}))

    table = await store.tables.get(table_id)
    assert table is not None
    assert (table.version, table.snapshot) == (1, {"at": 1})
    assert await store.tables.log(table_id) == [{"n": 1}]


async def test_record_is_one_transaction(store: Store, db_path: str) -> None:
    table_id = await running_table(store)
    # A stray log row makes the second of three inserts fail; the first must not survive.
    raw(db_path, "INSERT INTO actions VALUES (?, 2, '{}', 0)", (table_id,))

    with pytest.raises(sqlite3.IntegrityError):
        await store.tables.record(TableChange(table_id, 0, [{"n": 1}, {"n": 2}, {"n": 3}],
                                              {"at": 3}))

    table = await store.tables.get(table_id)
    assert table is not None
    assert (table.version, table.snapshot) == (0, {"log": 0})
    assert raw(db_path, "SELECT seq FROM actions WHERE table_id = ?", (table_id,)) == [(2,)]


async def test_concurrent_records_on_one_table_one_wins(store: Store) -> None:
    table_id = await running_table(store)
    outcomes = await asyncio.gather(
        store.tables.record(TableChange(table_id, 0, [{"by": "a"}], {"by": "a"})),
        store.tables.record(TableChange(table_id, 0, [{"by": "b"}], {"by": "b"})),
        return_exceptions=True,
    )
    assert sorted(map(type, outcomes), key=str) == sorted([int, StaleVersion], key=str)
    winner = "a" if outcomes[0] == 1 else "b"
    assert await store.tables.log(table_id) == [{"by": winner}]
    table = await store.tables.get(table_id)
    assert table is not None
    assert table.snapshot == {"by": winner}


async def test_finished_tables_take_no_more_moves(store: Store) -> None:
    table_id = await running_table(store)
    assert await store.tables.record(
        TableChange(table_id, 0, [{"last": True}], {"over": True}, "finished")) == 1
    with pytest.raises(StaleVersion, match="finished, not running"):
        await store.tables.record(TableChange(table_id, 1, [{"n": 2}], {}))
    with pytest.raises(ValueError, match="status"):
        await store.tables.record(TableChange(table_id, 1, [{"n": 2}], {}, "lobby"))


async def test_finding_tables(store: Store) -> None:
    old = await store.tables.create(-1, "group", "lobby", {}, [ANN], None)
    await store.tables.finish(old.id, "aborted", [])
    lobby = await store.tables.create(-1, "group", "lobby", {}, [ANN, BOB], None)
    private = await running_table(store, chat_id=1)

    found = await store.tables.for_user(1, statuses=("aborted",))
    assert found is not None
    assert found.id == old.id

    found = await store.tables.for_user(1)
    assert found is not None
    assert found.id == private  # the newest of Ann's two open tables
    found = await store.tables.for_user(2)
    assert found is not None
    assert found.id == lobby.id
    assert await store.tables.for_user(2, statuses=("running",)) is None
    assert await store.tables.for_user(3) is None

    assert [t.id for t in await store.tables.running()] == [private]


async def test_corrupt_snapshot(store: Store, db_path: str) -> None:
    broken = await running_table(store)
    good = await running_table(store)
    raw(db_path, "UPDATE tables SET snapshot = '{\"cut' WHERE id = ?", (broken,))

    with pytest.raises(CorruptRow, match=f"snapshot of table {broken}"):
        await store.tables.get(broken)
    assert [t.id for t in await store.tables.running()] == [good]


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


async def test_actions_are_append_only(store: Store, db_path: str) -> None:
    table_id = await running_table(store)
    await store.tables.record(TableChange(table_id, 0, [{"n": 1}], {}))
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        raw(db_path, "UPDATE actions SET entry = '{}'")


# -- messages and meta ----------------------------------------------------------------------


async def test_messages_upsert(store: Store) -> None:
    table_id = (await store.tables.create(-7, "group", "lobby", {}, [ANN, BOB], None)).id
    await store.messages.set(table_id, 1, 1, 10)
    await store.messages.set(table_id, None, -7, 20)
    await store.messages.set(table_id, 1, 1, 11)  # a fresh message replaced the old one
    await store.messages.set(table_id, None, -8, 21)  # the group became a supergroup

    assert await store.messages.of_table(table_id) == [
        MessageRow(table_id, None, -8, 21),
        MessageRow(table_id, 1, 1, 11),
    ]
    assert await store.messages.of_table(table_id + 1) == []


async def test_meta(store: Store) -> None:
    assert await store.meta.get("bot") is None
    await store.meta.set("bot", {"username": "durak_bot"})
    await store.meta.set("bot", {"username": "durak2_bot"})
    await store.meta.set("count", 3)
    assert await store.meta.get("bot") == {"username": "durak2_bot"}
    assert await store.meta.get("count") == 3


async def test_in_memory_database() -> None:
    store = await Store.open(":memory:")
    try:
        await store.users.ensure(5, "Eve")
        assert await store.schema_version() == NEWEST
    finally:
        await store.close()
