"""The Mini App on any process: a table's change reaches the open apps of every process.

A person's socket may be on one process while his table changes on another. So, on a database
several processes share, each change that was shown is announced on a Redis channel once its
transaction has committed (`ChangeAnnouncer`, told by the table service's `committed`). Every
process listens (`RelayListener`); one whose sockets show that table reads it as stored, in one
consistent reading outside its lock (nothing of it is kept: the table's lock validates what a
process holds), and sends each of them its state. The process that made the change has sent its
own sockets theirs already. A notice lost while the subscription was down is made good when it
is back: every table this process's sockets show is sent again.

Who has the app open is announced the same way (`AppPresence`), when it changes and every
APP_EVERY seconds, and each process keeps what the others said for APP_KEPT seconds (a process
that died stops saying it): a person whose app is open on any process is not away, and his chat
message waits.

The notices are typed (`TableChanged`, `AppsOpen`) and travel as JSON on one channel
(`RelayChannel`), each with its sender, so that a process ignores its own.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol

from redis.asyncio import Redis
from redis.exceptions import RedisError

from tg_durak.tables.live import LiveLobby, LiveTable
from tg_durak.webapp.sockets import AppSockets

log = logging.getLogger(__name__)

RECONNECT_SECONDS = 1.0   # after the subscription dropped
APP_EVERY = 20.0   # who has the app open here, said again this often
APP_KEPT = 60.0    # what another process said of its open apps, believed this long
# How long a listen may wait for a message before it checks the connection (a Redis that went
# away without closing it is noticed this soon).
LISTEN_SECONDS = 5.0


class NoticeKind(StrEnum):
    TABLE_CHANGED = "table"
    APPS_OPEN = "apps"


@dataclass(frozen=True)
class TableChanged:
    """A change of the table was stored and shown by its sender."""

    table_id: int


@dataclass(frozen=True)
class AppsOpen:
    """The people whose app shows the table on the sender's process, now."""

    table_id: int
    users: frozenset[int]


Notice = TableChanged | AppsOpen


def encode(sender: str, notice: Notice) -> str:
    if isinstance(notice, TableChanged):
        return json.dumps({"from": sender, "kind": NoticeKind.TABLE_CHANGED,
                           "table": notice.table_id})
    return json.dumps({"from": sender, "kind": NoticeKind.APPS_OPEN, "table": notice.table_id,
                       "users": sorted(notice.users)})


def decode(data: bytes | str) -> tuple[str, Notice] | None:
    """The sender and the notice; None for anything else (another version's, or garbage)."""
    try:
        message = json.loads(data)
        sender, kind, table_id = message["from"], message["kind"], message["table"]
        if not isinstance(sender, str) or type(table_id) is not int:
            return None
        if kind == NoticeKind.TABLE_CHANGED:
            return sender, TableChanged(table_id)
        if kind == NoticeKind.APPS_OPEN:
            users = message["users"]
            if isinstance(users, list) and all(type(u) is int for u in users):
                return sender, AppsOpen(table_id, frozenset(users))
    except (ValueError, TypeError, KeyError):
        pass
    return None


class RelayChannel:
    """The processes' one channel: notices sent in order by one task, and a subscription that
    comes back after Redis does."""

    def __init__(self, redis: Redis, channel: str) -> None:
        self._redis = redis
        self._channel = channel
        self.me = f"{os.uname().nodename}:{os.getpid()}:{id(self):x}"
        self._outgoing: asyncio.Queue[Notice] = asyncio.Queue()
        self._sender: asyncio.Task[None] | None = None
        self.announced = 0

    def send(self, notice: Notice) -> None:
        self._outgoing.put_nowait(notice)

    def start(self) -> None:
        self._sender = asyncio.create_task(self._send())

    async def close(self) -> None:
        if self._sender is not None:
            self._sender.cancel()
            await asyncio.gather(self._sender, return_exceptions=True)
        await self._redis.aclose()

    async def _send(self) -> None:
        while True:
            notice = await self._outgoing.get()
            try:
                await self._redis.publish(self._channel, encode(self.me, notice))
                self.announced += 1
            except RedisError as exc:   # the others catch up at the next notice
                log.warning("a notice to the other processes was lost (%s)", exc)

    async def listen(self, heard: Callable[[str, Notice], None],
                     subscribed: Callable[[], None]) -> None:
        """Forever: each other process's notice to `heard`; `subscribed` after each
        (re)subscription, when notices may have been missed."""
        while True:
            try:
                async with self._redis.pubsub() as pubsub:
                    await pubsub.subscribe(self._channel)
                    subscribed()
                    while True:
                        message = await pubsub.get_message(ignore_subscribe_messages=True,
                                                           timeout=LISTEN_SECONDS)
                        if message is None:
                            await pubsub.ping()
                        elif message["type"] == "message":   # not the ping's pong
                            read = decode(message["data"])
                            if read is not None and read[0] != self.me:
                                heard(*read)
            except (RedisError, OSError) as exc:
                log.warning("the Mini App's notices stopped (%s); listening again", exc)
            except Exception:   # a bug, not Redis: the apps must not stop hearing for it
                log.exception("the Mini App's notices stopped; listening again")
            await asyncio.sleep(RECONNECT_SECONDS)


class ChangeAnnouncer:
    """A `TableDisplay` that announces the tables shown under a lock once it commits."""

    def __init__(self, channel: RelayChannel) -> None:
        self._channel = channel
        self._shown: set[int] = set()    # shown under a lock not committed yet

    def show(self, live: LiveTable, only: int | None = None, bar: bool = False) -> None:
        if only is None and not bar:   # one person's redrawn screen, a bar: nothing new
            self._shown.add(live.id)

    def show_lobby(self, live: LiveLobby) -> None:
        self._shown.add(live.id)

    def committed(self, table_id: int) -> None:
        if table_id in self._shown:
            self._shown.discard(table_id)
            self._channel.send(TableChanged(table_id))


class AppPresence:
    """Who has the app open, on any process: this one's said to the others (`here_changed`,
    and again every APP_EVERY seconds), theirs believed for APP_KEPT seconds (a `Presence`)."""

    def __init__(self, channel: RelayChannel, clock: Callable[[], float]) -> None:
        self._channel = channel
        self._clock = clock
        self._here: dict[int, frozenset[int]] = {}
        # table -> process -> (the people whose app shows it there, when that was said)
        self._there: dict[int, dict[str, tuple[frozenset[int], float]]] = {}
        self._again: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._again = asyncio.create_task(self._say_again())

    async def close(self) -> None:
        if self._again is not None:
            self._again.cancel()
            await asyncio.gather(self._again, return_exceptions=True)

    def elsewhere(self, table_id: int) -> frozenset[int]:
        now = self._clock()
        return frozenset(user for users, said in self._there.get(table_id, {}).values()
                         if now - said < APP_KEPT for user in users)

    def here_changed(self, table_id: int, users: frozenset[int]) -> None:
        if users:
            self._here[table_id] = users
        else:
            self._here.pop(table_id, None)
        self._channel.send(AppsOpen(table_id, users))

    def heard(self, sender: str, notice: AppsOpen) -> None:
        self._there.setdefault(notice.table_id, {})[sender] = (notice.users, self._clock())

    async def _say_again(self) -> None:
        while True:
            await asyncio.sleep(APP_EVERY)
            for table_id, users in list(self._here.items()):
                self._channel.send(AppsOpen(table_id, users))


class TableReader(Protocol):
    """A table as stored, read whole (tables.cache.StoredTables)."""

    async def read(self, table_id: int) -> LiveTable | LiveLobby | None: ...


class RelayListener:
    """The others' notices: a changed table shown to this process's sockets, as stored; what
    they say of their open apps to the presence."""

    def __init__(self, channel: RelayChannel, tables: TableReader, sockets: AppSockets,
                 presence: AppPresence) -> None:
        self._channel = channel
        self._tables = tables
        self._sockets = sockets
        self._presence = presence
        self._showing: dict[int, asyncio.Task[None]] = {}   # a table read and shown now
        self._again: set[int] = set()    # announced again meanwhile: read once more after
        self._listening: asyncio.Task[None] | None = None
        self.relayed = 0

    def stats(self) -> dict[str, int]:
        """Changes announced to the other processes, and theirs shown to sockets here."""
        return {"announced": self._channel.announced, "relayed": self.relayed}

    def start(self) -> None:
        self._listening = asyncio.create_task(self._channel.listen(self._heard, self._relay_all))

    async def close(self) -> None:
        tasks = [*self._showing.values()]
        if self._listening is not None:
            tasks.append(self._listening)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    def _heard(self, sender: str, notice: Notice) -> None:
        if isinstance(notice, TableChanged):
            self._relay(notice.table_id)
        else:
            self._presence.heard(sender, notice)

    def _relay_all(self) -> None:
        for table_id in list(self._sockets.viewers):
            self._relay(table_id)

    def _relay(self, table_id: int) -> None:
        """Show the table as stored to its sockets here (once more after the reading under
        way, if one is: the notice may be of a change it did not see)."""
        if table_id not in self._sockets.viewers:
            return
        if table_id in self._showing:
            self._again.add(table_id)
            return
        task = asyncio.create_task(self._show(table_id))
        self._showing[table_id] = task
        task.add_done_callback(lambda _: self._showing.pop(table_id, None))

    async def _show(self, table_id: int) -> None:
        while True:
            self._again.discard(table_id)
            try:
                holder = await self._tables.read(table_id)
            except Exception:
                log.exception("table %s: cannot be read for the Mini App", table_id)
                return
            if isinstance(holder, LiveTable):
                self._sockets.show(holder)
            elif isinstance(holder, LiveLobby):
                self._sockets.show_lobby(holder)
            self.relayed += 1
            if table_id not in self._again:
                return


def connect(url: str, prefix: str) -> RelayChannel:
    """The processes' channel on the Redis at ``url``, named by ``prefix`` (the bot's)."""
    return RelayChannel(Redis.from_url(url, socket_connect_timeout=5.0), f"{prefix}tables")
