"""What one open app asks of the tables: who it is, which table it shows, its moves, Join, the
host's Start and Play again, and with no table the quick game with people. Everything enters
the table service (and the quick games' queue) as the chat's taps do."""

from __future__ import annotations

from tg_durak.i18n.translate import Translator, pick_locale, translator
from tg_durak.play.answers import OK, Answer, refused
from tg_durak.play.matching import DEFAULT_WAIT, QUICK_CHAT, QuickGame
from tg_durak.play.operators import maintenance_refusal
from tg_durak.play.options import PlaySettings, TableOptions
from tg_durak.play.rows import TableKind, TableRow, UserRow
from tg_durak.render.quick import QuickChoice
from tg_durak.render.quick_taps import QuickVerb
from tg_durak.tables.live import LiveLobby, LiveTable
from tg_durak.tables.moderation import Moderation
from tg_durak.tables.quick_games import QuickGames
from tg_durak.tables.service import TableService
from tg_durak.webapp.frames import Again, Join, MoveFrame, QuickFrame, Start
from tg_durak.webapp.launch import Launch
from tg_durak.webapp.sockets import AppSockets, Viewer
from tg_durak.webapp.texts import welcome

# answers with a text that are not refusals
ACCEPTED = frozenset({"lobby.joined", "quick.joined", "quick.left"})


class NoTable(Exception):
    """The launch names a table (a group's invite) that is not there any more."""


async def not_asked() -> bool:
    """Whether he administers the group: the app does not ask Telegram, so only the host
    starts from it (an administrator still may, from the chat)."""
    return False


class AppSessions:
    def __init__(self, tables: TableService, sockets: AppSockets, moderation: Moderation,
                 quick: QuickGames) -> None:
        self.tables = tables
        self.sockets = sockets
        self.moderation = moderation
        self.quick = quick

    async def _under_maintenance(self, viewer: Viewer, frame_id: int) -> bool:
        """No new game starts meanwhile (Join, Start, Play again, Rematch): he is told so."""
        left = await self.moderation.maintenance_left()
        if left is not None:
            self._answer(viewer, frame_id, maintenance_refusal(left))
        return left is not None

    async def person(self, launch: Launch) -> tuple[UserRow, Translator]:
        """His stored row (made at his first launch, as at his first message) and language."""
        row = await self.tables.store.users.ensure(launch.user_id, launch.name,
                                                   pick_locale(launch.language_code))
        return row, translator(row.language)

    async def open(self, viewer: Viewer, launch: Launch, user: UserRow) -> None:
        """The table the launch names (a group's, by its invite), else his running one: watched
        from now on, its state sent. With neither, the quick game with people."""
        table_id = await self._table_of(launch)
        if table_id is None and launch.start_param:
            raise NoTable()
        viewer.send(welcome(viewer, launch))
        if table_id is None:
            await self._home(viewer, QuickChoice.preferred(PlaySettings.from_dict(user.settings)),
                             user.id)
        else:
            await self._watch(viewer, table_id)

    async def _home(self, viewer: Viewer, choice: QuickChoice, user_id: int) -> None:
        """The app shows the quick game: `choice`, or his place in the queue if he waits."""
        self.sockets.show_home(viewer, choice, await self.quick.place_of(user_id))

    async def _table_of(self, launch: Launch) -> int | None:
        if launch.start_param:
            row = await self.tables.store.lobbies.by_invite(launch.start_param)
            holder = None if row is None else await self.tables.core.find(row.id)
            return None if holder is None else holder.id
        return await self.tables.running_table_of(launch.user_id)

    async def _watch(self, viewer: Viewer, table_id: int) -> None:
        self.sockets.watch(viewer, table_id)
        holder = await self.tables.core.find(table_id)
        if isinstance(holder, LiveLobby):
            viewer.send_state(self.sockets.lobby_state_of(holder, viewer))
        elif isinstance(holder, LiveTable):
            await self.tables.apps_changed(holder.id)
            viewer.send_state(self.sockets.state_of(holder, viewer))

    async def closed(self, viewer: Viewer) -> None:
        """The app closed: his chat message is brought up to date once (it waited meanwhile)."""
        table_id = viewer.table_id
        self.sockets.unwatch(viewer)
        if table_id is not None:
            await self.tables.app_closed(table_id, viewer.user_id)

    # ---- what the page asks ----------------------------------------------------------------

    async def move(self, viewer: Viewer, frame: MoveFrame) -> None:
        if viewer.table_id is None:
            return self._answer(viewer, frame.id, Answer("tap.unknown_table"))
        answer = await self.tables.moves.tap(viewer.user_id, viewer.table_id, frame.version,
                                            frame.tap)
        self._answer(viewer, frame.id, answer)

    async def join(self, viewer: Viewer, frame: Join, user: UserRow) -> None:
        holder = None if viewer.table_id is None else await self.tables.core.find(viewer.table_id)
        if not isinstance(holder, LiveLobby):
            return self._answer(viewer, frame.id, Answer("lobby.invite_stale"))
        if await self._under_maintenance(viewer, frame.id):   # the last seat starts the table
            return None
        answer = await self.tables.lobbies.join(holder.id, user, user.name, in_app=True)
        self._answer(viewer, frame.id, answer)

    async def start(self, viewer: Viewer, frame: Start) -> None:
        """The host's Start, as the lobby message's button: the lobby becomes the table, which
        every app watching it is then shown."""
        if viewer.table_id is None:
            return self._answer(viewer, frame.id, Answer("tap.unknown_table"))
        if await self._under_maintenance(viewer, frame.id):
            return None
        answer = await self.tables.lobbies.start(viewer.table_id, viewer.user_id, not_asked)
        self._answer(viewer, frame.id, answer)

    async def again(self, viewer: Viewer, frame: Again, user: UserRow) -> None:
        """Play again (a private table: a new game, which the app then shows) or Rematch (a
        group's: a new lobby in its chat)."""
        tables = self.tables
        row = None if viewer.table_id is None else await tables.store.tables.get(viewer.table_id)
        if row is None:
            return self._answer(viewer, frame.id, Answer("tap.unknown_table"))
        if row.chat_id == QUICK_CHAT:   # no chat to rematch in: the same game in the queue
            self._answer(viewer, frame.id, OK)
            return await self._home(viewer, QuickChoice(_quick_game(row), DEFAULT_WAIT), user.id)
        if await self._under_maintenance(viewer, frame.id):
            return None
        if row.kind == TableKind.GROUP:
            answer = await tables.lobbies.rematch(row.id, user, user.name)
            found = await tables.core.find_for(user.id)
            lobby = found if isinstance(found, LiveLobby) else None
        else:
            started = await tables.start_private(user.id, user.name,
                                                 PlaySettings.from_dict(user.settings))
            answer = Answer() if started else Answer("play.already")
            lobby = None
        table_id = await tables.running_table_of(user.id) if lobby is None else lobby.id
        self._answer(viewer, frame.id, answer)
        if table_id is not None and table_id != viewer.table_id:
            await self._watch(viewer, table_id)

    async def quick_game(self, viewer: Viewer, frame: QuickFrame, user: UserRow) -> None:
        """The quick game's choice, Find players, Leave the queue and Start with computers,
        from the app with no table; each as the chat's button (tables/quick_games.py)."""
        tap, quick = frame.tap, self.quick
        if viewer.table_id is not None:   # a table shows no quick game's buttons
            return self._answer(viewer, frame.id, refused("tap.unknown"))
        if tap.verb in (QuickVerb.FIND, QuickVerb.START) and await self._under_maintenance(
                viewer, frame.id):
            return None
        choice = QuickChoice.of(tap)
        if tap.verb == QuickVerb.CHOOSE and choice is not None:
            answer: Answer = OK
            await self._home(viewer, choice, user.id)
        elif tap.verb == QuickVerb.FIND and choice is not None:
            self.sockets.show_home(viewer, choice, None)   # his place follows once he waits
            answer = await quick.join(user, user.name, choice.game, choice.wait, None)
        elif tap.verb == QuickVerb.LEAVE:
            answer = await quick.leave(user.id)
        else:
            answer = await quick.start_now(user.id)
        self._answer(viewer, frame.id, answer)

    @staticmethod
    def _answer(viewer: Viewer, frame_id: int, answer: Answer) -> None:
        key = answer.key
        viewer.send({"type": "answer", "id": frame_id, "ok": key is None or key in ACCEPTED,
                     "key": key, "text": None if key is None else viewer.t(key, **answer.params)})


def _quick_game(row: TableRow) -> QuickGame:
    """The game a quick table was opened for."""
    options = TableOptions.from_dict(row.options)
    return QuickGame(options.variant, len(row.seats), options.deck)
