"""Telegram's budgets in Redis, shared by several processes (here: several RedisBudgets, each on
its own connection, as each process would have): small windows keep the tests short."""

from __future__ import annotations

import asyncio
import time

import pytest

from tg_durak.outbox.redis_budgets import RedisBudgets

from .conftest import URL, redis_asyncio


def processes(prefix: str, n: int, **kwargs: float) -> list[RedisBudgets]:
    return [RedisBudgets(redis_asyncio.Redis.from_url(URL), prefix, **kwargs)  # type: ignore[arg-type]
            for _ in range(n)]


async def close(budgets: list[RedisBudgets]) -> None:
    for b in budgets:
        await b._redis.aclose()


def busiest(starts_ms: list[int], window_ms: int) -> int:
    """The most reservations any window (t - window, t] holds."""
    starts = sorted(starts_ms)
    return max(sum(1 for s in starts if t - window_ms < s <= t) for t in starts)


async def test_several_processes_together_stay_within_a_window(prefix: str) -> None:
    """20 a minute per group, scaled down: 5 per 0.5 s, four processes racing for it."""
    procs = processes(prefix, 4, hold=1.0)
    starts: list[int] = []
    budget = ((f"{prefix}group", 5, 0.5),)

    async def run(budgets: RedisBudgets) -> None:
        deadline = time.monotonic() + 1.6
        while time.monotonic() < deadline:
            got = await budgets.reserve_in(budget)
            if got.wait:
                await asyncio.sleep(min(got.wait, 0.05))
                continue
            starts.append(got.at_ms)
            await asyncio.sleep(0.002)   # the request
            await budgets.release(got)

    try:
        await asyncio.gather(*(run(b) for b in procs))
    finally:
        await close(procs)
    assert busiest(starts, 500) <= 5
    assert len(starts) >= 12, "and the budget is used: about 5 each half second"


async def test_the_bots_budget_and_each_chats_hold_at_once(prefix: str) -> None:
    """The bot's 30 a second over many chats and each private chat's one a second, scaled: the
    bot 8 per 0.4 s, each chat 1 per 0.2 s, three processes writing to five chats."""
    procs = processes(prefix, 3, hold=1.0)
    starts: dict[str, list[int]] = {"bot": []}

    async def run(budgets: RedisBudgets, chat: int) -> None:
        deadline = time.monotonic() + 1.2
        key = f"{prefix}chat:{chat}"
        while time.monotonic() < deadline:
            got = await budgets.reserve_in(((f"{prefix}bot", 8, 0.4), (key, 1, 0.2)))
            if got.wait:
                await asyncio.sleep(min(got.wait, 0.03))
                continue
            starts["bot"].append(got.at_ms)
            starts.setdefault(key, []).append(got.at_ms)
            await budgets.release(got)

    try:
        await asyncio.gather(*(run(b, chat) for b in procs for chat in range(5)))
    finally:
        await close(procs)
    assert busiest(starts["bot"], 400) <= 8
    for key, chat_starts in starts.items():
        if key != "bot":
            assert busiest(chat_starts, 200) <= 1, key
    assert len(starts["bot"]) >= 16


async def test_a_request_in_flight_holds_its_place_until_a_window_after_its_answer(
        prefix: str) -> None:
    [budgets] = processes(prefix, 1, hold=5.0)
    chat = ((f"{prefix}chat:1", 1, 0.3),)
    try:
        first = await budgets.reserve_in(chat)
        assert first.wait == 0
        held = await budgets.reserve_in(chat)
        assert held.wait > 0.3, "in flight: its place is held until its timeout at most"
        await asyncio.sleep(0.2)
        answered = await budgets.release(first)
        after = await budgets.reserve_in(chat)
        assert 0 < after.wait <= 0.3
        assert after.at_ms - answered + after.wait * 1000 == pytest.approx(300, abs=2)
        await asyncio.sleep(after.wait)
        assert (await budgets.reserve_in(chat)).wait == 0
    finally:
        await close([budgets])


async def test_a_reservation_refused_in_one_budget_takes_nothing_in_the_others(
        redis: object, prefix: str) -> None:
    [budgets] = processes(prefix, 1)
    bot, chat = (f"{prefix}bot", 30, 1.0), (f"{prefix}chat:-5", 1, 60.0)
    try:
        assert (await budgets.reserve_in((bot, chat))).wait == 0
        refused = await budgets.reserve_in((bot, chat))
        assert refused.wait > 50 and not refused.bot_wide, "the group's budget binds"
        assert await redis.zcard(bot[0]) == 1, "the bot's window holds only the first"  # type: ignore[attr-defined]
        full_bot = (f"{prefix}bot", 1, 1.0)
        refused = await budgets.reserve_in((full_bot, (f"{prefix}chat:7", 1, 1.0)))
        assert refused.bot_wide
        assert not await redis.exists(f"{prefix}chat:7"), "the chat's window took nothing"  # type: ignore[attr-defined]
    finally:
        await close([budgets])


async def test_the_keys_expire_on_their_own(redis: object, prefix: str) -> None:
    [budgets] = processes(prefix, 1, hold=0.2)
    key = f"{prefix}chat:3"
    try:
        got = await budgets.reserve_in(((key, 2, 0.3),))
        assert 0 < await redis.pttl(key) <= 500  # type: ignore[attr-defined]
        await budgets.release(got)
        await budgets.pause(3, 0.1)
        await asyncio.sleep(0.6)
        assert not await redis.exists(key, f"{key}:pause")  # type: ignore[attr-defined]
    finally:
        await close([budgets])


async def test_a_429_pauses_the_chat_in_every_process(prefix: str) -> None:
    one, other = processes(prefix, 2)
    try:
        await one.pause(-9, 0.3)
        await one.pause(-9, 0.05)   # a shorter pause does not cut it short
        held = await other.reserve(-9)
        assert 0.2 < held.wait <= 0.3 and not held.bot_wide
        assert (await other.reserve(-10)).wait == 0, "other chats go on"
        await other.pause(None, 0.3)
        assert (await one.reserve(-10)).bot_wide
    finally:
        await close([one, other])
