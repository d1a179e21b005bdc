"""`python -m tg_durak migrate` and `migrate --check` (a deploy's step before the bot starts),
and `--version`, on SQLite and PostgreSQL alike: run as an operator runs them, a process of its
own on the database of `db_path` (tests/store/conftest.py)."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

from tg_durak.storage import migrations as schema
from tg_durak.storage.store import open_connection


def durak(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("BOT_TOKEN", "DURAK_"))}
    return subprocess.run([sys.executable, "-m", "tg_durak", *args], capture_output=True,
                          text=True, timeout=120, env=env, cwd=cwd)


async def _migrate_all_but_the_newest(db_path: str) -> str:
    connection = await open_connection(db_path)
    try:
        found = schema.load()
        await schema.apply(connection, found[:-1])
    finally:
        await connection.close()
    return found[-1].name


def test_migrate_applies_what_is_pending_and_check_says_so(db_path: str,
                                                           tmp_path: Path) -> None:
    newest = asyncio.run(_migrate_all_but_the_newest(db_path))
    done = durak("migrate", "--check", "--db", db_path, cwd=tmp_path)
    assert (done.returncode, done.stdout) == (1, f"pending: {newest}\n"), done.stderr
    done = durak("migrate", "--db", db_path, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    version = len(schema.load())
    assert done.stdout.splitlines() == [f"applied: {newest}",
                                        f"{_shown(db_path)}: schema {version} is current"]
    done = durak("migrate", "--check", "--db", db_path, cwd=tmp_path)
    assert (done.returncode, done.stdout.splitlines()) == (
        0, [f"{_shown(db_path)}: schema {version} is current"]), done.stderr


def test_migrate_builds_a_new_database_and_check_sees_one_never_migrated(
        db_path: str, tmp_path: Path) -> None:
    names = [migration.name for migration in schema.load()]
    if db_path.startswith("postgresql://"):   # an empty database: every migration pending
        done = durak("migrate", "--check", "--db", db_path, cwd=tmp_path)
        assert (done.returncode, done.stdout.splitlines()) == (
            1, [f"pending: {name}" for name in names]), done.stderr
    else:   # no file: nothing to check, and nothing created
        done = durak("migrate", "--check", "--db", db_path, cwd=tmp_path)
        assert done.returncode == 2 and "no database at" in done.stderr
        assert not Path(db_path).exists()
    done = durak("migrate", "--db", db_path, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[:-1] == [f"applied: {name}" for name in names]


def test_version_names_the_package_and_its_schema(tmp_path: Path) -> None:
    from importlib.metadata import version

    done = durak("--version", cwd=tmp_path)
    assert (done.returncode, done.stdout) == (
        0, f"tg-durak {version('tg-durak')}, schema {schema.load()[-1].version}\n")


def _shown(db_path: str) -> str:
    from tg_durak.storage import redacted

    return redacted(db_path)
