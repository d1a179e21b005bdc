"""A real Redis for the shared budgets' tests (127.0.0.1:6379, or DURAK_TEST_REDIS): unreachable,
the tests fail, unless DURAK_TEST_NO_REDIS=1 says this machine has none. Each test gets its own
key prefix (parallel workers never collide) and its keys are deleted after it."""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator

import pytest

if os.environ.get("DURAK_TEST_NO_REDIS") == "1":
    pytest.importorskip("redis")
import redis.asyncio as redis_asyncio

URL = os.environ.get("DURAK_TEST_REDIS", "redis://127.0.0.1:6379/0")


@pytest.fixture
async def redis() -> AsyncIterator[object]:
    client = redis_asyncio.Redis.from_url(URL, socket_timeout=5.0)
    try:
        await client.ping()
    except Exception as exc:
        await client.aclose()
        if os.environ.get("DURAK_TEST_NO_REDIS") == "1":
            pytest.skip(f"no Redis at {URL} (DURAK_TEST_NO_REDIS=1)")
        pytest.fail(f"no Redis at {URL} ({exc}): start redis-server, or set "
                    "DURAK_TEST_NO_REDIS=1 on a machine without one")
    yield client
    await client.aclose()


@pytest.fixture
async def prefix(redis: object) -> AsyncIterator[str]:
    name = f"test:{uuid.uuid4().hex}:"
    yield name
    keys = [key async for key in redis.scan_iter(match=f"{name}*")]  # type: ignore[attr-defined]
    if keys:
        await redis.delete(*keys)  # type: ignore[attr-defined]
