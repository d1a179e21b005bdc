"""Quick games on three webhook processes sharing one PostgreSQL and one Redis (issue 39): the
queue is the database's, so people who tap into it through any process meet at one table, and
nobody is seated twice."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.bot.conftest import CALLBACK_TTL, game_message
from tests.bot.test_quick_game import queue_up, quick_message
from tests.bot.test_scale_out import redis_url  # noqa: F401  (fixture)
from tests.helpers.fleet import Fleet, forget_redis, unique_token
from tests.store.conftest import pg_database, pg_url  # noqa: F401  (fixtures)
from tg_durak.emulator import FakeTelegram
from tg_durak.storage import Store

PEOPLE = list(range(901, 907))


@pytest.fixture
async def tg(redis_url: str) -> AsyncIterator[FakeTelegram]:  # noqa: F811
    token = unique_token()
    async with FakeTelegram(token, callback_ttl=CALLBACK_TTL) as fake:
        for user_id in PEOPLE:
            fake.add_user(user_id, f"P{user_id}", language_code="en")
        yield fake
    await forget_redis(redis_url, token)


async def test_six_people_through_three_processes_get_two_tables(
        tg: FakeTelegram, pg_url: str, redis_url: str, tmp_path: Path) -> None:  # noqa: F811
    async with Fleet(tg, pg_url, redis_url=redis_url, size=3,
                     workdir=tmp_path / "fleet") as fleet:
        try:
            for user_id in PEOPLE:
                await queue_up(tg, user_id, 3)
            await tg.wait_for(lambda: all(game_message(tg, p) is not None for p in PEOPLE)
                              and all("Table found" in quick_message(tg, p).text
                                      for p in PEOPLE),
                              timeout=120, what="everyone's game, and 'Table found'")
            await asyncio.sleep(2.0)   # every process ticked since: none drew "waiting" again
            assert all("Table found" in quick_message(tg, p).text for p in PEOPLE)
        except BaseException:
            print(fleet.logs())
            raise
    store = await Store.open(pg_url)
    try:
        tables = {p: (await store.tables.for_user(p)).id for p in PEOPLE}
        assert len(set(tables.values())) == 2
        for table_id in set(tables.values()):
            row = await store.tables.get(table_id)
            assert sorted(s.user_id for s in row.seats) == sorted(
                p for p, t in tables.items() if t == table_id)
        assert await store.quick.waiting() == []
    finally:
        await store.close()
