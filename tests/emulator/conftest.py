"""A clock the tests move by hand, so rate limits and expiries are checked without waiting."""

import pytest


class Clock:
    def __init__(self) -> None:
        self.now = 1_700_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()
