"""One who sits down at a table leaves the quick games' queue: what the tables tell the queue
(tables/quick_games.py's `Waiting`) each time they seat a person, so that it keeps no place for
him while he plays elsewhere (the queue's own tables take him out of it as they seat him)."""

from __future__ import annotations

from typing import Protocol


class Seating(Protocol):
    async def seated(self, user_id: int) -> None:
        """He sat down at a table (a lobby's seat, a private game): he waits no more. Called
        once his seat is stored and the table's lock is let go."""
        ...


class NoQueue:
    """No quick games: nobody waits."""

    async def seated(self, user_id: int) -> None:
        pass


NO_QUEUE = NoQueue()
