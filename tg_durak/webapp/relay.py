"""The Mini App on any process: a table's change reaches the open apps of every process.

A person's socket may be on one process while his table changes on another. So, on a database
several processes share, each change that was shown is announced on a Redis channel once its
transaction has committed (`TableCore.committed`): the table's id and who announces it. Every
process listens; one whose sockets show that table reads it as stored, in one consistent reading
outside its lock (nothing of it is kept: the table's lock validates what a process holds), and
sends each of them its state. The process that made the change has sent its own sockets theirs
already. A notice lost while the subscription was down is made good when it is back: every table
this process's sockets show is sent again.

Who has the app open is announced the same way, when it changes and every APP_EVERY seconds, and
each process keeps what the others said for APP_KEPT seconds (a process that died stops saying
it): a person whose app is open on any process is not away, and his chat message waits.
"""

from __future__ import annotations

import asyncio
import logging
import os

from redis.asyncio import Redis
from redis.exceptions import RedisError

from tg_durak.tables.core import TableCore
from tg_durak.tables.live import LiveLobby, LiveTable
from tg_durak.webapp.sockets import AppSockets

log = logging.getLogger(__name__)

RECONNECT_SECONDS = 1.0   # after the subscription dropped
APP_EVERY = 20.0   # who has the app open here, said again this often
APP_KEPT = 60.0    # what another process said of its open apps, believed this long
# How long a listen may wait for a message before it checks the connection (a Redis that went
# away without closing it is noticed this soon).
LISTEN_SECONDS = 5.0


class TableRelay:
    """A `TableDisplay` that announces the tables shown under a lock once it commits, and the
    listener that shows the others' announcements to this process's sockets."""

    def __init__(self, redis: Redis, channel: str, core: TableCore, sockets: AppSockets) -> None:
        self._redis = redis
        self._channel = channel
        self._core = core
        self._sockets = sockets
        self._me = f"{os.uname().nodename}:{os.getpid()}:{id(self):x}"
        self._shown: set[int] = set()    # shown under a lock not committed yet
        self._outgoing: asyncio.Queue[str] = asyncio.Queue()   # notices to send
        self._showing: dict[int, asyncio.Task] = {}   # a table read and shown now
        self._again: set[int] = set()    # announced again meanwhile: read once more after
        self._tasks: list[asyncio.Task] = []
        # table -> process -> (the people whose app shows it there, when that was said)
        self._apps: dict[int, dict[str, tuple[frozenset[int], float]]] = {}
        self.counts = {"announced": 0, "relayed": 0}
        core.committed.append(self._committed)
        sockets.changed.append(self._apps_here_changed)
        core.open_apps = self.seats_in_app

    def stats(self) -> dict[str, int]:
        """Changes announced to the other processes, and theirs shown to sockets here."""
        return dict(self.counts)

    def start(self) -> None:
        self._tasks = [asyncio.create_task(self._announce()), asyncio.create_task(self._listen()),
                       asyncio.create_task(self._apps_again())]

    async def close(self) -> None:
        for task in (*self._tasks, *self._showing.values()):
            task.cancel()
        await asyncio.gather(*self._tasks, *self._showing.values(), return_exceptions=True)
        await self._redis.aclose()

    # ---- TableDisplay: what this process shows is announced to the others ---------------

    def show(self, live: LiveTable, only: int | None = None, bar: bool = False) -> None:
        if only is None and not bar:   # one person's redrawn screen, a bar: nothing new
            self._shown.add(live.id)

    def show_lobby(self, live: LiveLobby) -> None:
        self._shown.add(live.id)

    def _committed(self, table_id: int) -> None:
        if table_id in self._shown:
            self._shown.discard(table_id)
            self._outgoing.put_nowait(f"T {table_id}")

    async def _announce(self) -> None:
        while True:
            notice = await self._outgoing.get()
            try:
                await self._redis.publish(self._channel, f"{self._me} {notice}")
                self.counts["announced"] += 1
            except RedisError as exc:   # the others catch up at the next notice
                log.warning("a notice to the other processes was lost (%s)", exc)

    # ---- who has the app open, on any process ---------------------------------------------

    def seats_in_app(self, live: LiveTable) -> set[int]:
        """The seats whose app shows the table, here or on another process."""
        now = self._core.clock()
        elsewhere = {user for users, said in self._apps.get(live.id, {}).values()
                     if now - said < APP_KEPT for user in users}
        return self._sockets.seats_in_app(live) | {
            seat for user in elsewhere if (seat := live.seat_of(user)) is not None}

    def _apps_here_changed(self, table_id: int) -> None:
        users = ",".join(map(str, sorted(self._sockets.watchers(table_id))))
        self._outgoing.put_nowait(f"A {table_id} {users}".rstrip())

    async def _apps_again(self) -> None:
        while True:
            await asyncio.sleep(APP_EVERY)
            for table_id in list(self._sockets.viewers):
                self._apps_here_changed(table_id)

    # ---- the others' announcements, shown to this process's sockets ----------------------

    async def _listen(self) -> None:
        while True:
            try:
                async with self._redis.pubsub() as pubsub:
                    await pubsub.subscribe(self._channel)
                    self._relay_all()   # what was missed while not subscribed
                    while True:
                        message = await pubsub.get_message(ignore_subscribe_messages=True,
                                                           timeout=LISTEN_SECONDS)
                        if message is None:
                            await pubsub.ping()
                        elif message["type"] == "message":   # not the ping's pong
                            self._heard(message["data"])
            except (RedisError, OSError) as exc:
                log.warning("the Mini App's notices stopped (%s); listening again", exc)
            except Exception:   # a bug, not Redis: the apps must not stop hearing for it
                log.exception("the Mini App's notices stopped; listening again")
            await asyncio.sleep(RECONNECT_SECONDS)

    def _heard(self, data: bytes | str) -> None:
        text = data.decode() if isinstance(data, bytes) else data
        sender, kind, table, *users = [*text.split(" "), "", "", ""]
        if sender == self._me or not table.isdigit():
            return
        if kind == "T":
            self._relay(int(table))
        elif kind == "A":
            said = frozenset(int(u) for u in users[0].split(",") if u.isdigit())
            self._apps.setdefault(int(table), {})[sender] = (said, self._core.clock())

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
                holder = await self._core.stored.read(table_id)
            except Exception:
                log.exception("table %s: cannot be read for the Mini App", table_id)
                return
            if isinstance(holder, LiveTable):
                holder.in_app = self._sockets.seats_in_app(holder)
                self._sockets.show(holder)
            elif isinstance(holder, LiveLobby):
                self._sockets.show_lobby(holder)
            self.counts["relayed"] += 1
            if table_id not in self._again:
                return


def connect(url: str, prefix: str, core: TableCore, sockets: AppSockets) -> TableRelay:
    """The relay on the Redis at ``url``, its channel named by ``prefix`` (the bot's)."""
    redis = Redis.from_url(url, socket_connect_timeout=5.0)
    return TableRelay(redis, f"{prefix}tables", core, sockets)
