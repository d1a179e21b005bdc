"""`python -m tg_durak local` in a process of its own, typed at as a newcomer would: a whole game,
numbers that tap what the screen shows, its own lines in the language chosen with /lang, and a
Ctrl-C that ends it at once and quietly."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

import pytest

from tests.processes import children, running

T = TypeVar("T")
SEPARATOR = "─" * 40
BUTTON = re.compile(r"\[(\d+)\] (\S[^\[]*?)(?=\s{2}\[|$)", re.M)


class LocalMode:
    """The terminal mode with its input and output on pipes, in a process group of its own as
    in a terminal (so that a Ctrl-C can reach every process in it)."""

    def __init__(self, tmp_path: Path, *args: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tg_durak", "local", "--db", str(tmp_path / "local.sqlite3"),
             *args],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"}, start_new_session=True,
        )
        self.lines: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.proc.stdout:
            self.lines.append(line)

    @property
    def output(self) -> str:
        return "".join(self.lines)

    def screen(self) -> str:
        return self.output.rsplit(SEPARATOR, 1)[-1]

    def buttons(self) -> dict[str, str]:
        """The last screen's buttons: text -> number."""
        return {text.strip(): n for n, text in BUTTON.findall(self.screen())}

    def type(self, text: str) -> None:
        self.proc.stdin.write(text + "\n")
        self.proc.stdin.flush()

    def wait_for(self, predicate: Callable[[], T], timeout: float = 60) -> T:
        deadline = time.monotonic() + timeout
        while not (value := predicate()):
            assert time.monotonic() < deadline and self.proc.poll() is None, self.output[-2000:]
            time.sleep(0.1)
        return value

    def ctrl_c(self) -> None:
        """What a terminal does on Ctrl-C: SIGINT to every process of the foreground group."""
        os.killpg(self.proc.pid, signal.SIGINT)

    def kill(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait()


@pytest.fixture
def local(tmp_path: Path) -> Iterator[Callable[..., LocalMode]]:
    started: list[LocalMode] = []

    def start(*args: str) -> LocalMode:
        started.append(LocalMode(tmp_path, *args))
        return started[-1]

    yield start
    for run in started:
        run.kill()


def test_local_mode_plays_a_whole_game(local) -> None:
    run = local("--speed", "10", "--name", "Newcomer", "--lang", "en")
    run.wait_for(lambda: "Newcomer" in run.output, timeout=150)
    run.type("1")  # ▶ Play
    deadline = time.monotonic() + 150
    last = None
    while time.monotonic() < deadline:
        screen, buttons = run.screen(), run.buttons()
        if "▶ Play again" in buttons:
            break
        if screen != last:
            last = screen
            choice = next((n for text, n in buttons.items() if text.startswith("•")),
                          buttons.get("Pass") or buttons.get("Take"))
            if choice:
                run.type(choice)
        time.sleep(0.2)
    screen = run.screen()
    assert "▶ Play again" in screen, screen
    assert any(w in screen.lower() for w in ("durak", "draw", "safe"))
    run.type("q")
    assert run.proc.wait(timeout=120) == 0


@pytest.mark.parametrize("moment", ["at the greeting", "mid-game"])
def test_ctrl_c_ends_it_at_once_without_a_traceback(local, moment: str) -> None:
    run = local("--speed", "10", "--lang", "en")
    run.wait_for(lambda: "▶ Play" in run.screen())
    workers: dict[int, str] = {}
    if moment == "mid-game":
        run.type("1")  # ▶ Play
        # Bot 1 moves, or the player's turn runs out and a computer moves for him: a worker
        # process starts, and it is in the terminal's process group too.
        workers = run.wait_for(lambda: children(run.proc.pid))
    run.ctrl_c()
    try:
        code = run.proc.wait(timeout=5)  # a bound on a hang, not a speed measurement
    except subprocess.TimeoutExpired:
        pytest.fail(f"still running 5 s after Ctrl-C:\n{run.output[-2000:]}")
    assert code == 0
    assert "Traceback" not in run.output and "KeyboardInterrupt" not in run.output, run.output
    assert not [pid for pid in workers if running(pid)], "a worker outlived the terminal mode"


def test_a_number_taps_the_button_it_labels_or_none(local) -> None:
    run = local("--speed", "10", "--lang", "ru")
    run.wait_for(lambda: "▶" in run.screen())
    play = run.buttons()
    assert play.get("▶ Играть") == "1", play
    run.type("99")
    run.wait_for(lambda: "» нет кнопки 99" in run.screen())
    assert run.buttons() == play, "99 went nowhere: the greeting is still the screen"
    run.type("1")
    run.wait_for(lambda: "Козырь" in run.screen())
    run.type("/rules")
    # The game goes on above the rules, its buttons numbered from 1 as before; the answer's
    # buttons start at 11, out of the way of a hand that grows.
    numbers = run.wait_for(lambda: (n := run.buttons().values()) and {"1", "11"} <= set(n)
                           and n)
    assert "1" in numbers and min(numbers, key=int) == "1"
    run.type("q")
    assert run.proc.wait(timeout=120) == 0


def test_the_terminals_own_lines_follow_the_language_chosen_with_lang(local) -> None:
    run = local("--speed", "10", "--lang", "en")
    run.wait_for(lambda: "▶ Play" in run.screen())
    assert "number = tap" in run.screen()
    run.type("/lang")
    polish = run.wait_for(lambda: run.buttons().get("Polski"))
    run.type(polish)
    run.wait_for(lambda: "Język interfejsu: Polski" in run.screen())
    run.type("99")
    screen = run.wait_for(lambda: "» nie ma przycisku 99" in (s := run.screen()) and s)
    assert "numer = naciśnij · /polecenie · q = wyjdź" in screen
    assert "number = tap" not in screen and "no button" not in screen
    run.type("q")
    assert run.proc.wait(timeout=120) == 0
