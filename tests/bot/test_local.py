"""`python -m tg_durak local`: a whole game played by typing numbers, as a newcomer would."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
import time

SEPARATOR = "─" * 40
BUTTON = re.compile(r"\[(\d+)\] (\S[^\[]*?)(?=\s{2}\[|$)", re.M)


def _screens(proc: subprocess.Popen, sink: list[str]) -> None:
    for line in proc.stdout:
        sink.append(line)


def _last_screen(lines: list[str]) -> str:
    text = "".join(lines)
    return text.rsplit(SEPARATOR, 1)[-1]


def test_local_mode_plays_a_whole_game(tmp_path) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "tg_durak", "local", "--speed", "0.1", "--name", "Newcomer",
         "--db", str(tmp_path / "local.sqlite3"), "--lang", "en"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    lines: list[str] = []
    threading.Thread(target=_screens, args=(proc, lines), daemon=True).start()

    def type_(text: str) -> None:
        proc.stdin.write(text + "\n")
        proc.stdin.flush()

    try:
        deadline = time.monotonic() + 150
        while "Newcomer" not in "".join(lines):
            assert time.monotonic() < deadline and proc.poll() is None, "".join(lines)[-2000:]
            time.sleep(0.1)
        type_("1")  # ▶ Play
        last = None
        while time.monotonic() < deadline:
            screen = _last_screen(lines)
            buttons = {text.strip(): n for n, text in BUTTON.findall(screen)}
            if "▶ Play again" in buttons:
                break
            if screen != last:
                last = screen
                choice = next((n for text, n in buttons.items() if text.startswith("•")),
                              buttons.get("Pass") or buttons.get("Take"))
                if choice:
                    type_(choice)
            time.sleep(0.2)
        screen = _last_screen(lines)
        assert "▶ Play again" in screen, screen
        assert "durak" in screen.lower() or "draw" in screen.lower()
        type_("q")
        assert proc.wait(timeout=30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
