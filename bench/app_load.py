"""Load on the Mini App: the real bot process, its people playing over the app's WebSocket.

    python bench/app_load.py --app-tables N --seconds S [--chat-seconds C]

As bench/load.py (whose bot process, people and measures this reuses), the bot runs against the
emulator with Telegram's limits. N private tables get one person and one computer (normal) each.
A person opens the bot, starts his game in the chat, then opens the Mini App from his game
message (the 🃏 Table button: the launch the emulator signs as Telegram does) and plays over the
app's WebSocket only: every 1.5 ± 0.5 s a random move of the latest state's `legal` list, Play
again ({"type": "again"}) once the game is over.

Measured over the S seconds once every app is open: move -> its answer frame; move -> its push
(the first state with a newer version on his socket); for the other pushes (the computer's moves,
deadlines) the time from the state's drawing (its clock.now, stamped right after the change was
stored) to its arrival, which is what the bot adds on the way out; the bot's requests to these
people's chats (none is due to a move while the app is open: only the game's end and the new
game's message are written there); 429s; the bot's CPU per move. Then, unless C is 0, the chat
path's own run (bench/load.py, the same N, C seconds) gives the CPU per tap to compare with.

The last line printed is one JSON object: at least `tables`, `taps`, `taps_per_s`,
`p50_answer_ms`, `p99_answer_ms`, `p50_push_ms`, `p99_push_ms`,
`telegram_requests_for_app_moves`, `cpu_ms_per_move`, `errors_429`.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import os
import random
import socket
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import aiohttp
from load import (
    ANSWER_TIMEOUT,
    BOT_USERNAME,
    CARD_SHARE,
    EDIT_GRACE,
    START_TIMEOUT,
    TAP_EVERY,
    TELEGRAM,
    BotProcess,
    Crowd,
    LagMonitor,
    Person,
    _arrive,
    _cast,
    _delta,
    _ms,
    _own_cpu,
    _percentile,
    _requests,
    _workdir,
    load_run,
    report,
)

from tg_durak.emulator import FakeTelegram
from tg_durak.i18n.translate import translator

OPEN_TIMEOUT = 30.0      # the app's first state after the hello, at most
AGAIN_GRACE = 5.0        # a new game's chat message this soon after Play again is its own
CHAT_METHODS = frozenset({"sendMessage", "editMessageText", "editMessageReplyMarkup",
                          "deleteMessage", "sendPhoto", "sendSticker"})


def _free_port() -> int:
    """A port the bot may listen on (DURAK_WEB_PORT takes no 0: the bench has to choose)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@dataclass(eq=False)
class AppMove:
    """A move (or Play again) frame and what came of it (monotonic times)."""

    at: float
    table: int
    version: int
    again: bool
    answered: asyncio.Event = field(default_factory=asyncio.Event)
    answered_at: float | None = None
    key: str | None = None         # the answer's key: None is a move applied
    ok: bool = False
    pushed_at: float | None = None


@dataclass(eq=False)
class Player:
    """One person's open app."""

    person: Person
    ws: aiohttp.ClientWebSocketResponse
    state: dict | None = None
    has_state: asyncio.Event = field(default_factory=asyncio.Event)
    next_id: int = 0
    sent: dict[int, AppMove] = field(default_factory=dict)    # awaiting their answer
    unpushed: list[AppMove] = field(default_factory=list)     # awaiting a newer state
    again_at: list[float] = field(default_factory=list)       # wall times of Play again


def pick(legal: list[dict], rng: random.Random) -> dict:
    """A random legal move, a card as often as the chat's people play one (load.CARD_SHARE)."""
    cards = [m for m in legal if "card" in m]
    if cards and (len(cards) == len(legal) or rng.random() < CARD_SHARE):
        return rng.choice(cards)
    return rng.choice([m for m in legal if "card" not in m] or cards)


class AppSide:
    """Every open app: the sockets, the frames sent on them and the states they brought."""

    def __init__(self, tg: FakeTelegram, ws_url: str, origin: str) -> None:
        self.tg = tg
        self.ws_url = ws_url
        self.origin = origin
        self.button = translator("en")("button.table")
        self.session = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0))
        self.players: dict[int, Player] = {}
        self.moves: list[AppMove] = []
        # Newer states that answer no move of his: (arrival, drawn -> arrival in s).
        self.other_pushes: list[tuple[float, float]] = []
        self.own_drawn: list[tuple[float, float]] = []   # the same, of his moves' pushes
        self.errors: Counter[str] = Counter()
        self.tasks: list[asyncio.Task] = []

    async def open(self, person: Person) -> bool:
        """He taps 🃏 Table on his game message: the app connects and says hello."""
        message = self.tg.message(person.user_id, person.message_id)
        url = self.tg.open_web_app(person.user_id, message, self.button)
        init_data = parse_qs(urlsplit(url).fragment)["tgWebAppData"][0]
        ws = await self.session.ws_connect(self.ws_url, headers={"Origin": self.origin})
        await ws.send_json({"type": "hello", "init_data": init_data})
        player = Player(person, ws)
        self.players[person.user_id] = player
        self.tasks.append(asyncio.create_task(self._read(player)))
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(player.has_state.wait(), OPEN_TIMEOUT)
            # He plays at once, as load.py's people do: a turn left to run out would make
            # him away and a computer would play his seat.
            self.tasks.append(asyncio.create_task(self._play(player)))
            return True
        return False

    async def close(self) -> None:
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)
        await self.session.close()

    # ---- down ------------------------------------------------------------------------------

    async def _read(self, player: Player) -> None:
        async for message in player.ws:
            if message.type != aiohttp.WSMsgType.TEXT:
                continue
            now, wall = time.monotonic(), time.time()
            frame = json.loads(message.data)
            kind = frame.get("type")
            if kind == "answer":
                self._answered(player, frame, now)
            elif kind == "state":
                self._state(player, frame, now, wall)
            elif kind == "error":
                self.errors[frame.get("code")] += 1
        self.errors["socket closed"] += 1

    @staticmethod
    def _answered(player: Player, frame: dict, now: float) -> None:
        move = player.sent.pop(frame.get("id"), None)
        if move is None:
            return
        move.answered_at, move.key, move.ok = now, frame.get("key"), bool(frame.get("ok"))
        move.answered.set()

    def _state(self, player: Player, frame: dict, now: float, wall: float) -> None:
        old, player.state = player.state, frame
        player.has_state.set()
        table, version = frame.get("table"), frame.get("version", 0)
        mine, waiting = False, []
        for move in player.unpushed:
            if move.table != table:
                continue   # a table left behind (Play again): no state of it will come
            if version > move.version:
                move.pushed_at, mine = now, True
            else:
                waiting.append(move)
        player.unpushed = waiting
        newer = old is not None and old.get("table") == table and version > old.get("version", 0)
        clock = frame.get("clock") or {}
        if newer and "now" in clock:
            drawn = (now, wall - clock["now"] / 1000)
            (self.own_drawn if mine else self.other_pushes).append(drawn)

    # ---- up --------------------------------------------------------------------------------

    async def _play(self, player: Player) -> None:
        rng = player.person.rng
        while True:
            await asyncio.sleep(rng.uniform(*TAP_EVERY))
            state = player.state
            if state is None or state.get("view") != "seat":
                continue
            if state.get("over"):
                await self._send(player, {"type": "again"}, state, again=True)
            elif state.get("legal"):
                frame = {"type": "move", "version": state["version"], **pick(state["legal"], rng)}
                await self._send(player, frame, state, again=False)

    async def _send(self, player: Player, frame: dict, state: dict, again: bool) -> None:
        player.next_id += 1
        move = AppMove(time.monotonic(), state["table"], state["version"], again)
        player.sent[player.next_id] = move
        if again:
            player.again_at.append(time.time())
        else:
            player.unpushed.append(move)
        self.moves.append(move)
        await player.ws.send_str(json.dumps({**frame, "id": player.next_id}))
        # As a person in the chat: the next move only once this one is answered.
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(move.answered.wait(), ANSWER_TIMEOUT)


class AppCrowd(Crowd):
    """load.py's people, who open the Mini App once their game has started in the chat."""

    def __init__(self, tg: FakeTelegram, app: AppSide) -> None:
        super().__init__(tg)
        self.app = app

    async def start_private(self, person: Person) -> None:
        await super().start_private(person)
        if person.playing.is_set() and not await self.app.open(person):
            self.setup_failures["no app state"] += 1


# ---- the run ----------------------------------------------------------------------------------

async def app_run(count: int, seconds: float, seed: int, keep: str | None = None) -> dict:
    port = _free_port()
    origin = f"http://127.0.0.1:{port}"
    env = {"DURAK_WEBAPP_URL": f"{origin}/", "DURAK_WEB_HOST": "127.0.0.1",
           "DURAK_WEB_PORT": str(port)}
    with _workdir(keep) as workdir:
        async with FakeTelegram(rate_limits=TELEGRAM, bot_username=BOT_USERNAME) as tg:
            bot = BotProcess(tg, str(Path(workdir) / "durak.sqlite3"), workdir, env)
            bot.start()
            app = AppSide(tg, f"{origin}/ws", origin)
            crowd = AppCrowd(tg, app)
            background = [asyncio.create_task(crowd.watch())]
            try:
                return await _drive(tg, bot, crowd, count, seconds, seed)
            finally:
                for task in background:
                    task.cancel()
                await app.close()
                await bot.stop()


async def _drive(tg: FakeTelegram, bot: BotProcess, crowd: AppCrowd, count: int,
                 seconds: float, seed: int) -> dict:
    app = crowd.app
    ready_s = await bot.ready(START_TIMEOUT)
    await _arrive(crowd, _cast(crowd, count, 0, seed))
    # As in load.py's window: no full collection over the emulator's kept requests meanwhile.
    gc.freeze()
    gc.disable()
    lag = LagMonitor()
    lag_task = asyncio.create_task(lag.run())
    stats_before = await bot.stats()
    cpu_before, own_before = bot.cpu(), _own_cpu()
    start, wall_start = time.monotonic(), time.time()
    await asyncio.sleep(seconds)
    end, wall_end = time.monotonic(), time.time()
    cpu_after, own_after = bot.cpu(), _own_cpu()
    gc.enable()
    lag_task.cancel()
    stats_after = await bot.stats()
    window = [m for m in app.moves if start <= m.at < end]
    await _grace(window)
    _write_moves(Path(bot.log_path).with_name("moves.csv"), window, start)
    return _report(tg, bot, crowd, window, {
        "tables": count, "seconds": end - start, "start": start, "end": end,
        "wall": (wall_start, wall_end), "ready_s": ready_s, "cpu": (cpu_before, cpu_after),
        "own_cpu": own_after - own_before, "stats": _delta(stats_before, stats_after),
        "lag": lag.lags,
    })


async def _grace(window: list[AppMove]) -> None:
    """Let the window's moves get their answers and pushes (bounded)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + EDIT_GRACE
    while loop.time() < deadline and any(
            m.answered_at is None or (m.key is None and not m.again and m.pushed_at is None)
            for m in window):
        await asyncio.sleep(0.2)


def _write_moves(path: Path, window: list[AppMove], start: float) -> None:
    """Every frame of the window: when (s into it), its answer and its push (ms): a stall
    shows as a run of slow ones at one moment."""
    lines = ["at_s,answer_ms,push_ms,key,again"]
    for m in window:
        answer = "" if m.answered_at is None else f"{(m.answered_at - m.at) * 1000:.1f}"
        push = "" if m.pushed_at is None else f"{(m.pushed_at - m.at) * 1000:.1f}"
        lines.append(f"{m.at - start:.3f},{answer},{push},{m.key or ''},{int(m.again)}")
    path.write_text("\n".join(lines) + "\n")


def _app_chat_requests(tg: FakeTelegram, players: dict[int, Player], start: float,
                       end: float) -> Counter[str]:
    """The bot's requests to the app players' chats in the window, by what they are for: the
    game's end (its Play again screen), the new game's message after Play again, or else a
    move's (which should not be: the chat message waits while the app is open)."""
    found: Counter[str] = Counter()
    for call in tg.calls:
        if not (start <= call.time < end) or call.method not in CHAT_METHODS:
            continue
        with contextlib.suppress(TypeError, ValueError):
            player = players.get(int(call.params.get("chat_id")))
            if player is None:
                continue
            if "u:again" in str(call.params.get("reply_markup", "")):
                found["game_end"] += 1
            elif call.method == "sendMessage" and any(
                    0 <= call.time - at < AGAIN_GRACE for at in player.again_at):
                found["new_game"] += 1
            else:
                found[f"move:{call.method}"] += 1
    return found


def _pcts(name: str, values: list[float]) -> dict:
    return {f"p{q}_{name}_ms": _ms(_percentile(values, q)) for q in (50, 95, 99)}


def _report(tg: FakeTelegram, bot: BotProcess, crowd: AppCrowd, window: list[AppMove],
            run: dict) -> dict:
    app, seconds, end = crowd.app, run["seconds"], run["end"] + EDIT_GRACE
    moves = [m for m in window if not m.again]
    applied = [m for m in moves if m.key is None and m.answered_at is not None]
    answers = [m.answered_at - m.at for m in window if m.answered_at is not None]
    # A push not seen by the end stands for at least the time waited (censored, not dropped).
    pushes = [(m.pushed_at if m.pushed_at is not None else end) - m.at for m in applied]
    in_window = [lag for at, lag in app.other_pushes if run["start"] <= at < run["end"]]
    own_drawn = [lag for at, lag in app.own_drawn if run["start"] <= at < run["end"]]
    _, window_429, total_429 = _requests(tg, *run["wall"])
    by_method = _requests(tg, *run["wall"])[0]
    chats = _app_chat_requests(tg, app.players, *run["wall"])
    (bot_before, workers_before), (bot_after, workers_after) = run["cpu"]
    taps = len(moves)
    tables = run["stats"].get("tables", {})
    return {
        "mode": "app",
        "tables": run["tables"],
        "apps_open": len(app.players),
        "seconds": round(seconds, 1),
        "taps": taps,
        "taps_per_s": round(taps / seconds, 1),
        "applied_per_s": round(len(applied) / seconds, 1),
        "agains": sum(m.again for m in window),
        "outcomes": dict(Counter(m.key or ("applied" if m.answered_at else "unanswered")
                                 for m in moves)),
        **_pcts("answer", answers),
        **_pcts("push", pushes),
        "max_push_ms": _ms(max(pushes, default=None)),
        "pushes_unseen": sum(m.pushed_at is None for m in applied),
        # drawn (clock.now) -> arrival: the bot's way out, for his own moves and the others'
        **_pcts("own_drawn_to_push", own_drawn),
        **_pcts("computer_push", in_window),
        "computer_pushes": len(in_window),
        "computer_moves": tables.get("computer_moves"),
        "telegram_requests_for_app_moves": sum(v for k, v in chats.items()
                                               if k.startswith("move:")),
        "telegram_requests_app_chats": dict(chats),
        "requests_by_method": dict(by_method.most_common()),
        "errors_429": total_429,
        "errors_429_window": window_429,
        "cpu_ms_per_move": round((bot_after - bot_before) / taps * 1000, 2) if taps else None,
        "bot_cpu_share": round((bot_after - bot_before) / seconds, 2),
        "computer_cpu_share": round((workers_after - workers_before) / seconds, 2),
        "load_cpu_share": round(run["own_cpu"] / seconds, 2),
        "load_loop_lag_p99_ms": _ms(_percentile(run["lag"], 99)),
        "bot_rss_mb": round(bot.rss_kb() / 1024, 1),
        "ready_s": round(run["ready_s"], 2),
        "machine_load": round(os.getloadavg()[0], 2),
        "app_errors": dict(app.errors),
        "setup_failures": dict(crowd.setup_failures),
        "bot_log": dict(bot.problems()),
    }


async def run_both(count: int, seconds: float, chat_seconds: float, seed: int,
                   keep: str | None) -> dict:
    """The app's run, then (chat_seconds > 0) the chat's at the same N for the CPU per tap."""
    result = await app_run(count, seconds, seed, keep and str(Path(keep) / "app"))
    chat = None
    if chat_seconds > 0:
        chat = await load_run(count, 0, chat_seconds, seed, keep and str(Path(keep) / "chat"))
    chat_cpu = None if chat is None else chat["bot_cpu_ms_per_tap"]
    result["chat"] = None if chat is None else {
        key: chat[key] for key in ("tables", "seconds", "taps", "taps_per_s", "p50_answer_ms",
                                   "p99_answer_ms", "p50_edit_ms", "p99_edit_ms",
                                   "bot_cpu_ms_per_tap", "bot_cpu_share", "errors_429")}
    result["chat_cpu_ms_per_tap"] = chat_cpu
    result["cpu_ratio_app_to_chat"] = (
        round(result["cpu_ms_per_move"] / chat_cpu, 2)
        if chat_cpu and result["cpu_ms_per_move"] is not None else None)
    return result


def _summary(r: dict) -> str:
    return (f"{r['tables']} app tables ({r['apps_open']} open), {r['taps_per_s']} moves/s, "
            f"answer p50/p99 {r['p50_answer_ms']}/{r['p99_answer_ms']} ms, move->push p50/p99 "
            f"{r['p50_push_ms']}/{r['p99_push_ms']} ms, computer's push (drawn->arrival) p99 "
            f"{r['p99_computer_push_ms']} ms, Telegram requests for app moves "
            f"{r['telegram_requests_for_app_moves']}, bot CPU {r['cpu_ms_per_move']} ms a move "
            f"(chat: {r['chat_cpu_ms_per_tap']} ms a tap, ratio {r['cpu_ratio_app_to_chat']}), "
            f"429s {r['errors_429']}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--app-tables", type=int, required=True,
                        help="private tables whose person plays in the Mini App")
    parser.add_argument("--seconds", type=float, default=30.0, help="the measured window")
    parser.add_argument("--chat-seconds", type=float, default=20.0,
                        help="the chat path's window at the same number of tables (0: none)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--keep", metavar="DIR",
                        help="keep both runs' databases and bot logs (DIR/app, DIR/chat) and "
                             "the result")
    args = parser.parse_args(argv)
    if args.app_tables <= 0:
        parser.error("--app-tables must be above 0")
    result = asyncio.run(run_both(args.app_tables, args.seconds, args.chat_seconds, args.seed,
                                  args.keep))
    report(result, _summary(result), args.keep)
    return 0


if __name__ == "__main__":
    sys.exit(main())
