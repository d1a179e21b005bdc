"""The outbox decides which request goes when; the time is passed in (a fake clock), so these
tests step through seconds of a saturated budget in no time."""

from __future__ import annotations

import math

import pytest

from tg_durak.outbox.budgets import Budget
from tg_durak.outbox.queue import AGING, OneOff, Outbox, Priority, Request
from tg_durak.render.screen import Screen

MOVER, PLAYER, WATCHER, BAR, BULK = Priority


def outbox(global_per_second: int = 1, private_interval: float = 0.01) -> Outbox:
    return Outbox(private_interval=private_interval, group_per_minute=6000,
                  global_per_second=global_per_second)


def run(box: Outbox, now: float, latency: float = 0.0) -> list[Request]:
    """What may start at `now`; each answered `latency` later (here: at once, in order)."""
    started, _ = box.due(now)
    for request in started:
        request.slot.shown = request.screen
        box.finished(request, now + latency)
    return started


def keys(requests: list[Request]) -> list[object]:
    return [r.slot.key for r in requests]


# -- the budget -----------------------------------------------------------------------------


def test_a_request_holds_its_place_until_a_window_after_its_answer() -> None:
    budget = Budget(limit=2, seconds=1.0)
    budget.take(0.0)
    assert budget.wait(0.0) == pytest.approx(0.5), "paced: two a second, one every half"
    budget.take(0.5)
    assert budget.wait(0.6) == math.inf, "both in flight: wait for an answer"
    budget.release(0.9)   # a slow answer: Telegram may have counted it as late as this
    assert budget.wait(1.0) == pytest.approx(0.9)
    budget.release(1.2)
    assert budget.wait(1.9) == 0.0
    budget.take(1.9)
    assert budget.wait(2.0) == pytest.approx(0.2), "the second answer's window"
    assert not budget.rested(2.5)
    budget.release(2.0)
    assert budget.rested(3.0)


def test_jittery_answers_never_put_more_than_the_limit_in_one_window() -> None:
    """Telegram counts a request when it arrives, anywhere between its start and its answer:
    the worst case is every start just after the window opens, every arrival at its answer."""
    box = outbox(global_per_second=30)
    answers: list[float] = []
    for step in range(3000):   # 3 s in milliseconds, a new screen for a new chat each
        now = step / 1000
        box.put(step, step + 1, 7, Screen("x"), MOVER, now)
        started, _ = box.due(now)
        for request in started:
            latency = 0.05 if step % 2 else 0.001
            answers.append(now + latency)
            box.finished(request, now + latency)
    answers.sort()
    busiest = max(sum(1 for a in answers if t - 1.0 < a <= t) for t in answers)
    assert busiest <= 30
    assert len(answers) >= 80, "and the budget is still used: about 29 a second"


# -- priorities -----------------------------------------------------------------------------


def test_with_the_bot_budget_spent_the_movers_screen_goes_first() -> None:
    box = outbox(global_per_second=1)
    box.put("first", 1, 7, Screen("a"), PLAYER, 0.0)
    assert keys(run(box, 0.0)) == ["first"]
    box.put("watcher", -100, 7, Screen("group"), WATCHER, 0.1)
    box.put("player", 2, 7, Screen("b"), PLAYER, 0.2)
    box.put("mover", 3, 7, Screen("c"), MOVER, 0.3)
    assert run(box, 0.5) == [], "the bot's budget is spent for this second"

    sent = [key for second in (1, 2, 3) for key in keys(run(box, float(second)))]
    assert sent == ["mover", "player", "watcher"]
    assert box.max_wait[MOVER] == pytest.approx(0.7)
    assert box.max_wait[WATCHER] == pytest.approx(2.9)


def test_timer_bars_use_spare_budget_only() -> None:
    box = outbox(global_per_second=1)
    box.put("bar 1", 1, 7, Screen("▓▓░"), BAR, 0.0)
    box.put("move", 2, 7, Screen("move"), PLAYER, 0.0)
    assert keys(run(box, 0.0)) == ["move"], "a bar never goes ahead of a screen"
    box.put("bar 2", 3, 7, Screen("▓░░"), BAR, 0.5)
    assert run(box, 0.5) == []
    assert box.counts["dropped"] == 2 and box.empty, "dropped, not waiting"

    box.put("bar 3", 3, 7, Screen("▓░░"), BAR, 2.0)
    assert keys(run(box, 2.0)) == ["bar 3"], "spare budget: it goes"


def test_a_bar_that_replaces_a_waiting_screen_is_no_bar() -> None:
    box = outbox(global_per_second=1)
    box.put("other", 1, 7, Screen("x"), PLAYER, 0.0)
    run(box, 0.0)
    box.put("k", 2, 7, Screen("move"), MOVER, 0.1)
    box.put("k", 2, 7, Screen("move, bar"), BAR, 0.2)
    assert run(box, 0.5) == [] and box.counts["dropped"] == 0
    [request] = run(box, 1.0)
    assert (request.screen.text, request.priority) == ("move, bar", MOVER)
    assert box.counts["coalesced"] == 1


def test_no_screen_waits_for_ever_behind_more_urgent_ones() -> None:
    """Five movers' screens change ten times a second, for ever: five times the budget. A
    watcher's screen still goes, after about two priority classes' worth of aging."""
    box = outbox(global_per_second=10)
    box.put("watcher", -100, 7, Screen("group"), WATCHER, 0.0)
    sent_at: dict[object, list[float]] = {}
    for step in range(1000):   # 10 s in hundredths
        now = step / 100
        if step % 10 == 0:
            for mover in range(1, 6):
                box.put(mover, mover, 7, Screen(f"move {step}"), MOVER, now)
        for request in run(box, now):
            sent_at.setdefault(request.slot.key, []).append(now)
    assert 2 * AGING <= sent_at["watcher"][0] <= 2 * AGING + 0.5
    assert all(len(sent_at[mover]) >= 9 for mover in range(1, 6)), "the movers kept going"


def test_a_broadcast_goes_after_every_other_screen_however_long_it_waited() -> None:
    """An operator's broadcast (BULK) never overtakes a game's screen by aging: games never
    wait for it; it goes when nothing else waits, in the order it came."""
    box = outbox(global_per_second=10)
    for person in range(1, 4):
        box.put_one_off(100 + person, Screen("news"), BULK, 0.0)
    sent: list[tuple[float, object]] = []
    for step in range(300):   # 3 s in hundredths; a watcher's screen every tenth of a second
        now = step / 100
        if step % 10 == 0 and now < 2.0:
            box.put("watcher", -100, 7, Screen(f"table {step}"), WATCHER, now)
        sent += [(now, r.slot.key) for r in run(box, now)]
    news = [(at, key) for at, key in sent if isinstance(key, OneOff)]
    assert [key.chat_id for _, key in news] == [101, 102, 103], "in the order they came"
    assert min(at for at, _ in news) >= 1.9, "not before the game's screens stopped coming"


def test_in_one_chat_screens_keep_their_turn_by_priority() -> None:
    box = outbox(global_per_second=100, private_interval=1.0)
    box.put("hand", 1, 7, Screen("a"), PLAYER, 0.0)
    box.put("notice", 1, 8, Screen("b"), PLAYER, 0.0)
    box.put("reply", 1, 9, Screen("c"), MOVER, 0.1)
    assert keys(run(box, 0.1)) == ["reply"]
    assert keys(run(box, 1.1)) == ["hand"]
    assert keys(run(box, 2.1)) == ["notice"]


# -- what is never sent, one-off messages ---------------------------------------------------


def test_superseded_and_unchanged_screens_are_counted_not_sent() -> None:
    box = outbox(global_per_second=100)
    box.put("k", 1, 7, Screen("a"), PLAYER, 0.0)
    box.put("k", 1, 7, Screen("b"), PLAYER, 0.0)
    assert [r.screen.text for r in run(box, 0.0)] == ["b"]
    box.put("k", 1, 7, Screen("b"), PLAYER, 1.0)
    assert run(box, 1.0) == []
    assert (box.counts["coalesced"], box.counts["unchanged"]) == (1, 1)


def test_a_one_off_message_is_sent_once_and_forgotten() -> None:
    box = outbox(global_per_second=100, private_interval=1.0)
    box.put_one_off(1, Screen("hello"), MOVER, 0.0, reply_to=5)
    box.put_one_off(1, Screen("hello"), MOVER, 0.5)
    [first] = box.due(0.0)[0]
    assert first.slot.key == OneOff(1, 1) and first.slot.reply_to == 5
    assert first.slot.message_id is None, "a new message, not an edit"
    box.retry(first)   # a 429: it waits its turn again
    box.finished(first, 0.1)
    assert box.queued == 2
    [second] = box.due(1.1)[0]
    assert second.slot.key == OneOff(1, 1), "the retried reply keeps its place"
    second.slot.message_id = 900
    box.finished(second, 1.1)
    [third] = box.due(2.1)[0]
    assert third.slot.key == OneOff(1, 2) and third.screen.text == "hello", "never deduplicated"
    box.finished(third, 2.1)
    assert box.empty and box.counts["replies"] == 2


def test_a_one_off_tells_once_whether_it_went() -> None:
    box = outbox(global_per_second=100, private_interval=1.0)
    told: list[tuple[str, bool]] = []
    box.put_one_off(1, Screen("a"), BULK, 0.0, settled=lambda went: told.append(("a", went)))
    box.put_one_off(2, Screen("b"), BULK, 0.0, settled=lambda went: told.append(("b", went)))
    [first] = box.due(0.0)[0]
    [second] = box.due(0.05)[0]
    box.retry(first)   # a 429: not settled yet
    box.finished(first, 0.1)
    box.finished(second, 0.1)   # refused (a 403): no message id
    assert told == [("b", False)]
    [again] = box.due(1.1)[0]
    again.slot.message_id = 900
    box.finished(again, 1.2)
    assert told == [("b", False), ("a", True)]


def test_spare_budget_is_what_a_bar_needs() -> None:
    box = outbox(global_per_second=1)
    assert box.spare(0.0)
    box.put("k", 1, 7, Screen("a"), PLAYER, 0.0)
    run(box, 0.0)
    assert not box.spare(0.5)
    box.put("bar", 2, 7, Screen("▓"), BAR, 0.5)
    assert run(box, 0.5) == [] and box.counts["dropped"] == 1
    assert box.spare(1.0)
