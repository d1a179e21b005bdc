"""aiogram runs every filter and handler that is not a coroutine in a thread of its own
(asyncio.to_thread): a bare magic filter (F.message.chat.type == "private") on the way to the
game's router cost every tap three thread round trips, about a tenth of the bot's CPU under
load. Every filter and handler of the bot's dispatcher must be awaitable: MagicData(F.event...)
instead of a bare F, async def instead of def."""

from __future__ import annotations

from unittest.mock import MagicMock

from aiogram import Router

from tg_durak.app import build_dispatcher


def run_in_threads(router: Router) -> list[str]:
    found = []
    for kind, observer in router.observers.items():
        found += [f"{router.name} {kind} router filter {f.callback}"
                  for f in observer._handler.filters or [] if not f.awaitable]
        for handler in observer.handlers:
            name = getattr(handler.callback, "__name__", handler.callback)
            if not handler.awaitable:
                found.append(f"{router.name} {kind} handler {name}")
            found += [f"{router.name} {kind} {name} filter {f.callback}"
                      for f in handler.filters or [] if not f.awaitable]
    for sub in router.sub_routers:
        found += run_in_threads(sub)
    return found


def test_nothing_the_dispatcher_calls_runs_in_a_thread() -> None:
    tables = MagicMock()
    tables.languages.of = lambda user_id: "en"
    assert run_in_threads(build_dispatcher(MagicMock(), tables, MagicMock())) == []
