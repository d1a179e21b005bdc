"""A PostgreSQL backup and its restore, as docs/deploying.md#postgresql-backup-and-restore does
them: `pg_dump --format=custom` of a database the bot wrote (a finished game, a running one, an
open lobby, a cancelled one), `pg_restore --no-owner` into a fresh database, then `migrate
--check` and `check` on the restored one exit 0 and the bot writes on where it stopped (the id
sequences came along). Each database is the test's own, created and dropped."""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
from pathlib import Path

import pytest

from tests.helpers.stored_games import ANN, played, sound_database
from tests.store.postgres_server import WANTED, worker_database
from tg_durak.storage import Store

pytestmark = pytest.mark.skipif(not WANTED, reason="DURAK_TEST_NO_POSTGRES=1: no PostgreSQL")

TIMEOUT = 300.0   # a guard against a hang on a busy machine


async def run(*command: str, env: dict[str, str] | None = None) -> tuple[int, str]:
    proc = await asyncio.create_subprocess_exec(
        *command, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT, env=env)
    out, _ = await asyncio.wait_for(proc.communicate(), TIMEOUT)
    assert proc.returncode is not None
    return proc.returncode, out.decode()


async def bot_command(db_url: str, *args: str) -> tuple[int, str]:
    """`python -m tg_durak ...` on the database, as an operator runs it."""
    return await run(sys.executable, "-m", "tg_durak", *args,
                     env={**os.environ, "DURAK_DB": db_url})


async def contents(db_url: str) -> dict[int, tuple]:
    """Every table's version, status and log length, with Ann's record (results, rating)."""
    store = await Store.open(db_url, readonly=True)
    try:
        found = {}
        for table_id in await store.tables.ids():
            row = await store.tables.get(table_id)
            assert row is not None
            found[table_id] = (row.version, row.status, len(await store.tables.log(table_id)))
        found[0] = (await store.results.player_record(ANN), await store.results.ratings([ANN]))
        return found
    finally:
        await store.close()


async def test_a_dump_restored_into_a_fresh_database_checks_clean(tmp_path: Path) -> None:
    for tool in ("pg_dump", "pg_restore"):
        assert shutil.which(tool), f"{tool} is not installed (Debian's postgresql-client)"
    dump = tmp_path / "durak.dump"
    with worker_database() as original, worker_database() as restored:
        written = await sound_database(original)
        code, out = await run("pg_dump", "--format=custom", f"--dbname={original}",
                              f"--file={dump}")
        assert code == 0, out
        code, out = await run("pg_restore", "--no-owner", "--exit-on-error",
                              f"--dbname={restored}", str(dump))
        assert code == 0, out

        code, out = await bot_command(restored, "migrate", "--check")
        assert code == 0 and "is current" in out, out
        code, out = await bot_command(restored, "check")
        assert code == 0, out
        before = await contents(original)
        assert before[written["finished"]][1] == "finished" and len(before) == 5   # 4 and Ann
        assert await contents(restored) == before

        # The bot writes on in the restored database: a new table takes the next id.
        store = await Store.open(restored)
        try:
            another = await played(store, [ANN], 5, computers=1, steps=20)
        finally:
            await store.close()
        assert another > max(before)
        code, out = await bot_command(restored, "check")
        assert code == 0, out
