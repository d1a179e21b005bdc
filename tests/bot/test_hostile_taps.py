"""Forged taps (issue 11, hostile input): a property test against the real bot.

Anyone can send any callback data on any message he can see. Here six people live around four
groups (a running group table, two open lobbies, a cancelled one) and a private game, and
hypothesis makes them tap arbitrary bytes and well-formed forgeries of every button: other
tables and seats, old versions, illegal and nonexistent cards, huge and negative numbers, other
chats' lobby buttons, menu buttons pressed on a group's message. After each tap:

- the tap was answered, and nothing escaped as an exception (no ERROR log record);
- no table, seat or lobby changed, except by one move of the tapper's own seat that is what his
  button says (the engine refuses illegal ones); computers and clocks may move meanwhile;
- no person's settings changed but the tapper's own, from his private chat;
- the groups' messages are as they were: none deleted, none added, none turned into a private
  screen (a menu, a setup, somebody's hand).

Taps a person may legitimately make that change things (Join in the lobby's own chat, Start or
Cancel by its host, Resign in his private chat, ...) are left to the other tests.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import sqlite3
from dataclasses import dataclass, field, replace
from pathlib import Path

import pytest
from aiogram.filters.callback_data import CallbackData
from hypothesis import HealthCheck, assume, example, given, note, settings
from hypothesis import strategies as st

from engine import Game
from engine.cards import CARDS
from tests.bot.conftest import ALICE, BOB, CALLBACK_TTL, game_message, settings_for
from tests.bot.groups import open_lobby, start
from tg_durak.app import BotApp
from tg_durak.emulator import FakeTelegram
from tg_durak.emulator.models import Message
from tg_durak.i18n.translate import LOCALES
from tg_durak.play.options import CHOICES, LEVELS, OptionField, encode
from tg_durak.render.callbacks import LobbyVerb, MenuAction, RuleBook, SetupField, Verb
from tg_durak.storage import Store
from tg_durak.telegram.callbacks import (
    KickCallback,
    LangCallback,
    LobbyOptionCallback,
    LobbyTapCallback,
    MenuCallback,
    MoveCallback,
    SetupCallback,
    SetupOptionCallback,
)
from tg_durak.telegram.throttle import Throttle, TokenBuckets

CAT, DAN, MAL, EVE = 503, 504, 505, 506
EXAMPLES = int(os.environ.get("HOSTILE_EXAMPLES", "200"))   # more to search longer
PEOPLE = (ALICE, BOB, CAT, DAN, MAL, EVE)
NAMES = {ALICE: "Alice", BOB: "Bob", CAT: "Cat", DAN: "Dan", MAL: "Mallory", EVE: "Eve"}
TABLE_CHAT = -1001000000001    # Alice hosts a running table: Alice, Bob and a computer
LOBBY_CHAT = -1001000000002    # Dan's open lobby; Mallory is a member
OWN_CHAT = -1001000000003      # Mallory's own group (he created it) and his own lobby
CLOSED_CHAT = -1001000000004   # Eve's lobby, cancelled
GROUPS = {
    TABLE_CHAT: ((ALICE, BOB, MAL), ALICE),
    LOBBY_CHAT: ((DAN, MAL, EVE), DAN),
    OWN_CHAT: ((MAL,), MAL),
    CLOSED_CHAT: ((EVE, CAT), EVE),
}
GROUP_BUTTONS = ("g:", "go:", "k:", "nf:")   # what a group's message may carry (and urls)
PRIVATE_ONLY = frozenset({MenuAction.QUICK, MenuAction.AGAIN, MenuAction.RESIGN,
                          MenuAction.KEEP, MenuAction.LEAVE_SURE})
HOST_CHANGES = frozenset({LobbyVerb.START, LobbyVerb.CANCEL, LobbyVerb.SETTINGS,
                          LobbyVerb.BACK})
SEAT_COUNTS = frozenset(str(n) for n in range(2, 7))
ANYONE_CHANGES = frozenset({LobbyVerb.JOIN, LobbyVerb.LEAVE, LobbyVerb.COMPUTER,
                            LobbyVerb.REMATCH})
# What each game verb may make of the tapper's seat, as the log writes it.
VERB_KINDS = {Verb.CARD: {"attack", "defend", "transfer"}, Verb.TARGET: {"defend"},
              Verb.TRANSFER_MODE: {"transfer"}, Verb.TRANSFER: {"transfer"},
              Verb.TAKE: {"take"}, Verb.PASS: {"pass"}, Verb.SHOW_TRUMP: {"show_trump"},
              Verb.CANCEL: set()}
CARD_VERBS = frozenset({Verb.CARD, Verb.TARGET, Verb.TRANSFER, Verb.SHOW_TRUMP})


class Errors(logging.Handler):
    """Every ERROR record, wherever it comes from: aiogram logs an escaped exception so."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(self.format(record))


@dataclass
class State:
    """What a tap could change: the store's tables, seats, logs and people, and the groups'
    messages."""

    tables: dict[int, tuple]
    seats: dict[tuple[int, int], tuple]
    users: dict[int, tuple]
    group_messages: dict[tuple[int, int], tuple]
    private_counts: dict[int, int]


@dataclass
class World:
    tg: FakeTelegram
    app: BotApp
    db_path: str
    table: int = 0      # the running group table
    private: int = 0    # Cat's private game
    lobby: int = 0      # Dan's
    own: int = 0        # Mallory's
    closed: int = 0     # Eve's, cancelled
    errors: Errors = field(default_factory=Errors)
    lobby_screens: dict[tuple[int, int], tuple] = field(default_factory=dict)

    # ---- what people see and what the bot knows ---------------------------------------

    def message(self, user_id: int, chat: int, pick: int) -> Message:
        """A message the person sees: in his private chat (`chat` 0) or a group's (anyone may
        read a public group and tap its buttons)."""
        messages = [m for m in self.tg.messages(chat or user_id) if not m.deleted]
        return messages[pick % len(messages)]

    def resolve(self, token: str, user_id: int, fields: tuple[str, ...]) -> str:
        """A forgery's field as of now: "{lobby}" is Dan's lobby's id, "{v-1}" the version
        before the named table's current one, "{card0}" a card in the tapper's hand."""
        ids = {"{table}": self.table, "{private}": self.private, "{lobby}": self.lobby,
               "{own}": self.own, "{closed}": self.closed}
        if token in ids:
            return str(ids[token])
        if token.startswith("{v"):
            named = None
            with contextlib.suppress(ValueError):
                named = self.app.tables.core.tables.get(int(self.resolve(fields[1], user_id, ())))
            version = 0 if named is None else named.game.version
            return str(max(0, version - int(token[3:-1] or 0)))
        if token.startswith("{card"):
            hand = self._hand(user_id) or [0]
            return str(hand[int(token[5:-1]) % len(hand)])
        return token

    def _hand(self, user_id: int) -> list[int]:
        live = self.app.tables.core.live_for(user_id)
        seat = None if live is None else live.seat_of(user_id)
        return [] if seat is None else [c.index for c in live.game.hand(seat)]

    def state(self) -> State:
        with contextlib.closing(sqlite3.connect(self.db_path)) as db:
            tables = {row[0]: row[1:] for row in db.execute(
                "SELECT id, kind, status, chat_id, host_id, options, version FROM tables")}
            seats = {(t, s): rest for t, s, *rest in db.execute(
                "SELECT table_id, seat, user_id, name, level, status FROM seats")}
            users = {row[0]: row[1:] for row in db.execute(
                "SELECT id, language, settings, reachable FROM users")}
        group_messages = {(m.chat_id, m.message_id): (m.text, _data(m), m.deleted)
                          for c in GROUPS for m in self.tg.messages(c, include_deleted=True)}
        private_counts = {p: len(self.tg.messages(p, include_deleted=True)) for p in PEOPLE}
        return State(tables, seats, users, group_messages, private_counts)

    def log(self, table_id: int, start: int, end: int) -> list[list]:
        with contextlib.closing(sqlite3.connect(self.db_path)) as db:
            return [json.loads(e) for (e,) in db.execute(
                "SELECT entry FROM actions WHERE table_id = ? AND seq > ? AND seq <= ?"
                " ORDER BY seq", (table_id, start, end))]

    def seat_user(self, state: State, table_id: int, seat: int) -> int | None:
        return state.seats[(table_id, seat)][0]

    # ---- which taps a person may make and that change things ---------------------------

    def legit(self, user_id: int, chat_id: int, data: str) -> bool:
        """A tap some other test covers because it may change things: none of this test's
        business. Everything else must change nothing but the tapper's own move."""
        lobbies = {LOBBY_CHAT: self.lobby, OWN_CHAT: self.own, CLOSED_CHAT: self.closed}
        manages = GROUPS.get(chat_id, ((), None))[1] == user_id
        match _parse(data):
            case MenuCallback(action=action) if chat_id == user_id:   # his menus, his setup
                return action in PRIVATE_ONLY
            case SetupCallback(field=SetupField.START) if chat_id == user_id:
                return True
            case LobbyTapCallback(table=table, verb=LobbyVerb.SEATS, value=value) \
                    if table == lobbies.get(chat_id):
                return manages and value in SEAT_COUNTS   # garbage must be refused
            case LobbyTapCallback(table=table, verb=verb) if table == lobbies.get(chat_id):
                return verb in ANYONE_CHANGES or (verb in HOST_CHANGES and manages)
            case LobbyOptionCallback(table=table) if table == lobbies.get(chat_id):
                return manages
            case KickCallback() if chat_id == TABLE_CHAT:
                return manages   # the host may remove one who is away
        return False

    # ---- the property ------------------------------------------------------------------

    def check(self, before: State, after: State, user_id: int, chat_id: int, data: str) -> None:
        assert after.tables.keys() == before.tables.keys(), "a forged tap opened a table"
        assert after.seats == before.seats, "a forged tap moved a seat"
        for uid, row in after.users.items():
            if row != before.users.get(uid):
                assert uid == user_id == chat_id, f"{data!r} changed the settings of {uid}"
        moves = []
        for table_id, (kind, status, chat, host, options, version) in after.tables.items():
            was = before.tables[table_id]
            assert (kind, chat, host, options) == (was[0], was[2], was[3], was[4]), table_id
            if version == was[5]:
                assert status == was[1], f"{data!r} changed table {table_id}'s status"
                continue
            assert status in (was[1], "finished"), (table_id, was[1], status)
            for entry in self.log(table_id, was[5], version):
                if entry[0] == "act" and not entry[6] \
                        and self.seat_user(after, table_id, entry[1]) is not None:
                    moves.append((table_id, entry))
        assert len(moves) <= 1, f"one tap, several people's moves: {moves}"
        if moves:
            self._own_move(*moves[0], after, user_id, data)
        self._groups_untouched(before, after)
        for person, count in after.private_counts.items():
            if person != user_id:
                assert count == before.private_counts[person], \
                    f"{user_id}'s {data!r} wrote to {person}"

    def _own_move(self, table_id: int, entry: list, after: State, user_id: int,
                  data: str) -> None:
        _, seat, kind, card, target, _, _ = entry
        move = MoveCallback.unpack(data)   # anything else moving a person is a fault
        assert move.table == table_id and self.seat_user(after, table_id, seat) == user_id, \
            f"{user_id}'s {data!r} moved seat {seat} of table {table_id}"
        assert kind in VERB_KINDS[move.verb], (data, entry)
        if move.verb in CARD_VERBS:
            assert card == str(CARDS[move.card]), (data, entry)
        if move.verb == Verb.TARGET:
            assert target == move.target, (data, entry)

    def _groups_untouched(self, before: State, after: State) -> None:
        assert after.group_messages.keys() == before.group_messages.keys(), \
            "the bot wrote in a group"
        for key, (text, data, deleted) in after.group_messages.items():
            assert not deleted, f"group message {key} deleted"
            assert all(d is None or d.startswith(GROUP_BUTTONS) for d in data), (key, data)
            if key in self.lobby_screens:
                assert (text, data) == self.lobby_screens[key], f"lobby message {key} changed"
            else:
                assert "Trump" in text, f"the table's message became {text!r}"


def _parse(data: str) -> CallbackData | None:
    """The button the data unpacks to, as the bot's filters read it."""
    for kind in (MoveCallback, SetupCallback, SetupOptionCallback, LangCallback, MenuCallback,
                 KickCallback, LobbyTapCallback, LobbyOptionCallback):
        with contextlib.suppress(ValueError, TypeError):
            return kind.unpack(data)
    return None


def _data(message: Message) -> tuple[str | None, ...]:
    return tuple(b.callback_data for row in message.buttons for b in row)


# ---- forgeries ---------------------------------------------------------------------------

NUMBERS = st.one_of(st.integers(-3, 60), st.integers(-(2**80), 2**80),
                    st.sampled_from([2**63 - 1, 2**63, -(2**63) - 1, 2**64]))
GARBAGE = st.one_of(NUMBERS.map(str), st.text(max_size=12),
                    st.sampled_from(["", " 1", "1 ", "+1", "01", "1_0", "١", "²", "1e3", "0x1",
                                     "-0", "None", "true"]))


TABLES = ("{table}", "{private}", "{lobby}", "{own}", "{closed}")
OPTION_VALUES = tuple(sorted({encode(v) for choices in CHOICES.values() for v in choices}))
BUTTONS = {   # each kind of button, field by field: the values worth forging
    "m": (TABLES, ("{v}", "{v-1}", "{v-3}", "0"), tuple(Verb),
          ("{card0}", "{card1}", "{card2}", "{card5}", "0", "51"), ("-1", "0", "1", "2")),
    "g": (TABLES, tuple(LobbyVerb), (*LEVELS, "2", "3", "5", "")),
    "go": (TABLES, tuple(OptionField), OPTION_VALUES),
    "k": (TABLES, tuple(str(p) for p in PEOPLE)),
    "u": (tuple(MenuAction), ("", *RuleBook)),
    "s": (tuple(SetupField), ("1", "3", *LEVELS)),
    "s ": (tuple(OptionField), OPTION_VALUES),   # the setup's options share its prefix
    "l": (tuple(LOCALES),),
}


@dataclass(frozen=True)
class Forgery:
    """Callback data as fields: the prefix, then values or tokens that name what matters at the
    moment of the tap ({lobby}, {v-1}, {card0}: see World.resolve), so that the strategy stays
    the same while the games move on."""

    fields: tuple[str, ...]

    def data(self, world: World, user_id: int) -> str:
        return ":".join(world.resolve(f, user_id, self.fields) for f in self.fields)


@st.composite
def forgeries(draw: st.DrawFn) -> Forgery:
    """A button of one kind, each field one that matters; then maybe a field or two spoiled
    with garbage, one too many or one too few."""
    kind = draw(st.sampled_from(sorted(BUTTONS)))
    fields = [kind.strip(), *(draw(st.sampled_from(choices)) for choices in BUTTONS[kind])]
    for _ in range(draw(st.integers(0, 2))):
        fields[draw(st.integers(1, len(fields) - 1))] = draw(GARBAGE)
    match draw(st.sampled_from(["", "", "", "fewer", "more"])):
        case "fewer":
            fields.pop()
        case "more":
            fields.append(draw(GARBAGE))
    return Forgery(tuple(fields))


FORGERIES = st.one_of(forgeries(),
                      st.binary(max_size=70).map(lambda b: b.decode("utf-8", "replace")))
CHATS = (0, TABLE_CHAT, LOBBY_CHAT, OWN_CHAT, CLOSED_CHAT)   # 0: the tapper's private chat


def _forged(*fields: str) -> Forgery:
    return Forgery(fields)


# ---- the world ---------------------------------------------------------------------------

async def _open_world(tmp_path: Path) -> World:
    tg = FakeTelegram(callback_ttl=CALLBACK_TTL)
    await tg.start()
    for person in PEOPLE:
        tg.add_user(person, NAMES[person])
    for chat_id, (members, creator) in GROUPS.items():
        tg.add_group(chat_id, f"group {chat_id}", members=members, creator=creator)
    db_path = str(tmp_path / "durak.sqlite3")
    # Real time: a turn lasts 30 s, longer than the test; computers answer in 1.5-3 s.
    app = BotApp(replace(settings_for(tg, db_path), time_scale=1.0))
    await app.start()
    world = World(tg, app, db_path)
    for person in PEOPLE:
        await tg.send_text(person, "/start")
        await tg.wait_for(lambda p=person: tg.last_message(p) is not None)

    async def table() -> None:
        lobby = await open_lobby(tg, ALICE, TABLE_CHAT)
        world.table = await app.tables.running_table_of(ALICE)
        for person, button in ((BOB, "✋ Join"), (ALICE, "+🤖 Normal")):
            answer = await tg.press(person, lobby, button)   # seated once answered
            assert not answer.show_alert, answer.text
        await start(tg, ALICE, lobby, [ALICE, BOB])

    async def private() -> None:
        await tg.press(CAT, tg.last_message(CAT), "▶ Play")
        await tg.wait_for(lambda: game_message(tg, CAT) is not None)
        world.private = await app.tables.running_table_of(CAT)

    async def lobbies() -> None:
        await open_lobby(tg, DAN, LOBBY_CHAT)
        world.lobby = await app.tables.running_table_of(DAN)
        await open_lobby(tg, MAL, OWN_CHAT)
        world.own = await app.tables.running_table_of(MAL)
        closed = await open_lobby(tg, EVE, CLOSED_CHAT)
        world.closed = await app.tables.running_table_of(EVE)
        await tg.press(EVE, closed, "✖ Cancel")
        await tg.wait_for(lambda: not tg.message(CLOSED_CHAT, closed.message_id).buttons)

    await asyncio.gather(table(), private(), lobbies())
    await _settle(world)
    world.lobby_screens = {key: (text, data) for key, (text, data, _)
                           in world.state().group_messages.items()
                           if key[0] != TABLE_CHAT}
    # Forgeries come faster than any person taps: the throttle (tested on its own) steps
    # aside, or it would answer most of them itself.
    throttle = next(m for m in app.dp.callback_query.outer_middleware if isinstance(m, Throttle))
    throttle.buckets = TokenBuckets(burst=float("inf"))
    logging.getLogger().addHandler(world.errors)
    return world


async def _settle(world: World) -> None:
    with contextlib.suppress(TimeoutError):
        await world.app.publisher.flush(timeout=2.0)


async def _close_world(world: World) -> None:
    logging.getLogger().removeHandler(world.errors)
    await world.app.stop()
    await world.tg.stop()


async def _one_tap(world: World, user_id: int, chat: int, pick: int,
                   forgery: Forgery | str) -> None:
    message = world.message(user_id, chat, pick)
    forged = forgery if isinstance(forgery, str) else forgery.data(world, user_id)
    tapped = f"{NAMES[user_id]} tapped {forged!r} on {message.chat_id}/{message.message_id}"
    note(tapped)
    assume(not world.legit(user_id, message.chat_id, forged))
    await _settle(world)
    before = world.state()
    try:
        await world.tg.press(user_id, message, forged.encode(), timeout=60)
        await _settle(world)
        assert world.errors.records == [], world.errors.records
        world.check(before, world.state(), user_id, message.chat_id, forged)
    except (AssertionError, TimeoutError) as failure:   # the world moved on: say what broke it
        raise AssertionError(f"{tapped}: {failure}") from failure


async def _stored_as_played(world: World) -> None:
    """Each game's stored log, replayed move by move from the deal (the engine refusing any
    illegal one), is the game as it is being played."""
    for table_id in (world.table, world.private):
        live = world.app.tables.core.tables.get(table_id)
        if live is None:
            continue
        async with world.app.tables.core.lock(table_id):   # no move half-saved
            row = await world.app.store.tables.get(table_id)
            log = await world.app.store.tables.log(table_id)
            replayed = Game.replay({**row.snapshot, "log": log})
            assert replayed.to_dict(log=False) == live.game.to_dict(log=False), table_id


def _search(world: World, runner: asyncio.Runner) -> None:
    # Forgeries that once got through, tried first every time; then the search.
    @example(MAL, OWN_CHAT, 0, _forged("g", "{lobby}", "x", ""))   # an admin elsewhere cancels
    @example(MAL, OWN_CHAT, 0, _forged("go", "{lobby}", "deck", "24"))
    @example(EVE, 0, 0, _forged("g", "{lobby}", "j", ""))   # Join from a private chat
    @example(MAL, 0, 0, _forged("g", "{own}", "l", ""))
    @example(MAL, OWN_CHAT, 0, _forged("g", "{closed}", "r", ""))   # a lobby in Eve's group
    @example(DAN, LOBBY_CHAT, 0, _forged("g", "{lobby}", "n", "²"))   # int("²") fails
    @example(ALICE, 0, 0, _forged("m", str(2**70), "0", "c", "0", "-1"))   # beyond SQLite
    @example(MAL, 0, 0, _forged("k", str(2**64), "1"))
    @example(BOB, TABLE_CHAT, 0, _forged("u", "resign", ""))   # everyone's game aborted
    @example(MAL, TABLE_CHAT, 0, _forged("u", "keep", ""))   # the group's message deleted
    @example(MAL, TABLE_CHAT, 0, _forged("u", "rules", "transfer"))   # rules posted there
    @example(MAL, TABLE_CHAT, 0, _forged("l", "uk"))   # the table became a language note
    @example(EVE, TABLE_CHAT, 0, _forged("s", "start", ""))   # the table became Eve's game
    @example(EVE, LOBBY_CHAT, 0, _forged("s", "deck", "24"))   # ... or her setup
    @example(CAT, 0, 0, _forged("m", "{private}", "{v}", "c", "{card0}", "-1"))
    @example(BOB, 0, 0, _forged("m", "{table}", "{v-1}", "k", "-1", "-1"))
    @settings(max_examples=EXAMPLES, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
    @given(st.sampled_from(PEOPLE), st.sampled_from(CHATS), st.integers(0, 9), FORGERIES)
    def tap(user_id: int, chat: int, pick: int, forgery: Forgery | str) -> None:
        runner.run(_one_tap(world, user_id, chat, pick, forgery))

    tap()


def test_forged_taps_change_nothing_but_the_tappers_own_legal_move(tmp_path: Path) -> None:
    with asyncio.Runner() as runner:
        world = runner.run(_open_world(tmp_path))
        try:
            _search(world, runner)
            runner.run(_stored_as_played(world))
        finally:
            runner.run(_close_world(world))



async def test_resigning_at_a_group_table_leaves_the_game_to_the_others(
        tg: FakeTelegram, bot: BotApp, store: Store, caplog: pytest.LogCaptureFixture) -> None:
    """/quit's Resign, at a group's table, hands the seat to a computer as /leave does: one
    person must not end everyone's game."""
    tg.add_group(TABLE_CHAT, "Durak club", members=[ALICE, BOB], creator=ALICE)
    for person in (ALICE, BOB):
        await tg.send_text(person, "/start")
    lobby = await open_lobby(tg, ALICE, TABLE_CHAT)
    assert not (await tg.press(BOB, lobby, "✋ Join")).show_alert
    assert not (await tg.press(ALICE, lobby, "+🤖 Normal")).show_alert
    await start(tg, ALICE, lobby, [ALICE, BOB])

    bobs = game_message(tg, BOB)
    await tg.send_text(BOB, "/quit")
    question = await tg.wait_for(lambda: (lambda m: "Resign this game?" in m.text and m)(
        tg.last_message(BOB)))
    # A double tap: the second finds the question gone, and says nothing of it.
    answers = await asyncio.gather(*(tg.press(BOB, question, "Resign") for _ in range(2)))
    assert "You resigned." in [a.text for a in answers]
    table = await store.tables.for_user(ALICE)
    assert table is not None and table.status == "running"
    assert [s.status for s in table.seats if s.user_id is not None] == ["playing", "left"]
    await tg.wait_for(lambda: tg.message(BOB, bobs.message_id).text.startswith(
        "You're no longer"))
    assert await bot.tables.running_table_of(ALICE) == table.id
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR] == []
