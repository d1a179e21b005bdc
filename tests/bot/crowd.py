"""People tapping at once through their game messages, every tap recorded with its Telegram
update, so that a test can tell afterwards which taps were answered, which were taken without an
answer (the process that took one died) and whether any was lost.

A person taps what his screen offers (`choose_button`), waits until the tap is answered or its
update was taken by the bot (a 2xx) — as a person whose spinner stops taps on — and taps again a
moment later. At a private game's end he plays again (`again`), else he is done.
"""

from __future__ import annotations

import asyncio
import random
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from tests.bot.conftest import choose_button, game_message, is_over
from tg_durak.emulator import FakeTelegram
from tg_durak.emulator.models import CallbackQuery, InlineButton, Message

TEXTS = {"pass": "Pass", "take": "Take"}
# A guard against a hang: a tap's answer, a screen's change. Never a measure of speed.
HANG = 120.0


@dataclass(frozen=True)
class Tap:
    user_id: int
    query: CallbackQuery
    update_id: int


class Crowd:
    """`people` tapping at once from `start` until `stop`; `again`: those who play another
    private game when one ends."""

    def __init__(self, tg: FakeTelegram, people: Iterable[int], *, again: Iterable[int] = (),
                 pause: tuple[float, float] = (0.05, 0.25)) -> None:
        self.tg = tg
        self.people = list(people)
        self.again = set(again)
        self.pause = pause
        self.taps: list[Tap] = []
        self.games_over: Counter[int] = Counter()   # games seen to their end, per person
        self._playing = False
        self._tasks: list[asyncio.Task] = []

    def start(self) -> None:
        self._playing = True
        self._tasks = [asyncio.create_task(self._play(p)) for p in self.people]

    async def stop(self) -> None:
        """Nobody taps any more. A tap already made is Telegram's to deliver: `settled` waits
        for those."""
        self._playing = False
        self._tasks, tasks = [], self._tasks
        for task in tasks:
            task.cancel()
        for outcome in await asyncio.gather(*tasks, return_exceptions=True):
            if isinstance(outcome, Exception):
                raise outcome

    async def settled(self) -> None:
        """Until every tap was answered or its update taken, and Telegram has no update left
        to deliver."""
        tg, updates = self.tg, self.tg.state.updates
        await tg.wait_for(lambda: all(t.query.answer is not None or not updates.holds(
            t.update_id) for t in self.taps) and not tg.pending_updates
            and not tg.webhooks.in_flight, timeout=HANG, what="every update taken")

    def check(self) -> None:
        """Raise what a person's task met (a screen that did not change, an error) at once."""
        for task in self._tasks:
            if task.done() and not task.cancelled() and task.exception() is not None:
                raise task.exception()  # type: ignore[misc]

    async def until_taps(self, count: int) -> None:
        """Until `count` taps more than now were made."""
        wanted = len(self.taps) + count
        await self.tg.wait_for(lambda: self.check() or len(self.taps) >= wanted
                               or all(t.done() for t in self._tasks), timeout=HANG,
                               what=f"{count} more taps")

    def answers(self) -> Counter[str]:
        """How often each callback query was answered."""
        return Counter(c.params["callback_query_id"]
                       for c in self.tg.calls_to("answerCallbackQuery") if c.ok)

    async def tap(self, user_id: int, message: Message, button: InlineButton) -> Tap:
        """One tap, returned once it is answered or its update was taken."""
        assert button.callback_data is not None
        query = self.tg.state.press(user_id, message.chat_id, message.message_id,
                                    button.callback_data)
        # press queued the update just now, nothing ran since: it is the queue's last.
        tap = Tap(user_id, query, self.tg.pending_updates[-1]["update_id"])
        self.taps.append(tap)
        updates = self.tg.state.updates
        await self.tg.wait_for(lambda: query.answer is not None or not updates.holds(
            tap.update_id), timeout=HANG, what=f"an answer to {user_id}'s tap {query.data}")
        return tap

    async def _play(self, user_id: int) -> None:
        rng = random.Random(user_id)
        seen = game_message(self.tg, user_id)
        assert seen is not None, f"{user_id} has no game message"
        while self._playing:
            # One who is out of a group game keeps his message, without buttons, to its end.
            message = seen = _screen(self.tg, user_id, seen)
            if is_over(message):
                self.games_over[user_id] += 1
                if user_id not in self.again:
                    return
                await self.tap(user_id, message, _button(message, "u:again:"))
                await self.tg.wait_for(lambda m=message: _screen(self.tg, user_id, m)
                                       .message_id != m.message_id, timeout=HANG,
                                       what=f"{user_id}'s next game")
                continue
            button = choose_button(message, rng, TEXTS)
            if button is None:   # not his turn: until his screen changes
                await self.tg.wait_for(lambda m=message: _changed(self.tg, user_id, m),
                                       timeout=HANG, what=f"a change of {user_id}'s screen")
                continue
            await self.tap(user_id, message, button)
            await asyncio.sleep(rng.uniform(*self.pause))


def _screen(tg: FakeTelegram, user_id: int, seen: Message) -> Message:
    """His game message: the newest with a game's buttons, else the one he last saw."""
    return game_message(tg, user_id) or tg.message(seen.chat_id, seen.message_id)


def _changed(tg: FakeTelegram, user_id: int, seen: Message) -> bool:
    now = _screen(tg, user_id, seen)
    return (now.message_id, now.edit_count) != (seen.message_id, seen.edit_count)


def _button(message: Message, data: str) -> InlineButton:
    return next(b for row in message.buttons for b in row if b.callback_data == data)
