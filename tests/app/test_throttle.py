"""The throttle's token buckets: a burst, then a steady rate; idle buckets forgotten."""

from __future__ import annotations

from tg_durak.telegram.throttle import BURST, KEPT, TAPS_PER_SECOND, TokenBuckets


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_burst_then_the_rate() -> None:
    clock = Clock()
    buckets = TokenBuckets(clock=clock)
    assert [buckets.take(1) for _ in range(BURST + 2)] == [True] * BURST + [False] * 2
    assert buckets.take(2), "each person has his own bucket"
    clock.now += 1.0
    allowed = [buckets.take(1) for _ in range(BURST)]
    assert allowed == [True] * int(TAPS_PER_SECOND) + [False] * (BURST - int(TAPS_PER_SECOND))
    clock.now += 3600.0
    assert [buckets.take(1) for _ in range(BURST + 1)] == [True] * BURST + [False], \
        "a long rest fills the bucket, never beyond the burst"


def test_refused_taps_do_not_postpone_the_refill() -> None:
    clock = Clock()
    buckets = TokenBuckets(rate=1.0, burst=1, clock=clock)
    assert buckets.take(1)
    for _ in range(4):
        clock.now += 0.125
        assert not buckets.take(1)
    clock.now += 0.5
    assert buckets.take(1)   # one second after the last token was spent


def test_full_buckets_are_forgotten_once_there_are_many() -> None:
    clock = Clock()
    buckets = TokenBuckets(clock=clock)
    for key in range(KEPT):
        buckets.take(key)
    assert len(buckets) == KEPT
    clock.now += BURST / TAPS_PER_SECOND   # every bucket has filled up again
    buckets.take(-1)
    assert len(buckets) == 1
    busy = TokenBuckets(clock=clock)
    for key in range(KEPT + 1):   # all busy at once: nothing to forget, and no sweep per tap
        busy.take(key)
    assert len(busy) == KEPT + 1 and busy._limit == 2 * (KEPT + 1)
