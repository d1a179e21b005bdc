"""Schema changes: applied once each, in order, each in its own transaction; a newer schema
refused; what the migrations did to rows written before them."""

import shutil
from pathlib import Path

import pytest

from tests.store.helpers import integrity_error, raw, table_names
from tg_durak.storage import SchemaTooNew, Store
from tg_durak.storage import migrations as migrations_module

# The package's migration files, in order; other features add theirs after these.
MIGRATIONS = sorted(
    p.name for p in Path(migrations_module.__file__).with_name("migrations").glob("*.sql")
)
NEWEST = len(MIGRATIONS)
ANN, BOB = 1, 2


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

    names = table_names(db_path)
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
    with pytest.raises(integrity_error(db_path), match="no; never"):
        raw(db_path, "DELETE FROM a")


async def test_in_memory_database() -> None:
    store = await Store.open(":memory:")
    try:
        await store.users.ensure(5, "Eve")
        assert await store.schema_version() == NEWEST
    finally:
        await store.close()


async def test_the_migration_dates_tables_closed_before_it(tmp_path: Path,
                                                           db_path: str) -> None:
    folder = tmp_path / "only_0001"
    folder.mkdir()
    shutil.copy(Path(migrations_module.__file__).with_name("migrations") / "0001_init.sql", folder)
    old = await Store.open(db_path, migrations=folder)
    await old.close()
    raw(db_path, "INSERT INTO tables (chat_id, kind, status, options, created_at, updated_at)"
                 " VALUES (1, 'private', 'finished', '{}', 5, 7), (1, 'private', 'running',"
                 " '{}', 5, 8)")
    new = await Store.open(db_path)
    await new.close()
    assert raw(db_path, "SELECT finished_at FROM tables ORDER BY id") == [(7.0,), (None,)]


async def test_the_migration_marks_people_with_a_private_table_reachable(
        tmp_path: Path, db_path: str) -> None:
    """Users from before 0003 who have played privately have opened the bot."""
    path = db_path
    migrations = Path(__file__).parents[2] / "tg_durak" / "storage" / "migrations"
    old = tmp_path / "old"
    old.mkdir()
    for name in ("0001_init.sql", "0002_ratings.sql"):
        (old / name).write_text((migrations / name).read_text())
    s = await Store.open(path, migrations=old)
    await s.close()
    # rows as the old bot wrote them
    for user_id, name in ((ANN, "Ann"), (BOB, "Bob")):
        raw(path, "INSERT INTO users (id, name, created_at, updated_at) VALUES (?, ?, 0, 0)",
            (user_id, name))
    raw(path, "INSERT INTO tables (id, chat_id, kind, status, options, created_at,"
              " updated_at) VALUES (1, ?, 'private', 'finished', '{}', 0, 0)", (ANN,))
    raw(path, "INSERT INTO seats (table_id, seat, user_id, name) VALUES (1, 0, ?, 'Ann')",
        (ANN,))
    s = await Store.open(path)
    try:
        assert (await s.users.get(ANN)).reachable
        assert not (await s.users.get(BOB)).reachable
    finally:
        await s.close()
