"""The page's words for the protocol (static/js/protocol.js, moves.js) are the server's
(webapp/frames.py, play/taps.py): read from the page's source, so they cannot drift apart."""

from __future__ import annotations

from tests.webapp.page_source import constant, script
from tg_durak.play.taps import APP_MOVES
from tg_durak.webapp import frames
from tg_durak.webapp.frames import FrameType
from tg_durak.webapp.texts import APP_TEXTS


def test_the_close_codes_are_the_servers() -> None:
    server = {name: value for name, value in vars(frames).items() if name.startswith("CLOSE_")}
    assert server == {"CLOSE_REFUSED": 4401, "CLOSE_NO_TABLE": 4404}
    source = script("protocol.js")
    assert {name: constant(source, name) for name in server} == server


def test_the_frames_sent_up_are_the_ones_the_server_reads() -> None:
    assert constant(script("protocol.js"), "UP") == {t.name: t.value for t in FrameType}


def test_the_answer_to_a_ping_is_the_servers() -> None:
    down = constant(script("protocol.js"), "DOWN")
    assert isinstance(down, dict) and down["PONG"] == frames.PONG["type"]


def test_each_kind_of_move_carries_what_the_server_reads() -> None:
    page = constant(script("moves.js"), "MOVE_KINDS")
    assert isinstance(page, dict)
    assert list(page) == list(APP_MOVES)
    for kind, move in APP_MOVES.items():
        assert (page[kind]["card"], page[kind]["target"]) == (move.card, move.target), kind


def test_every_move_button_has_its_text_in_the_welcome() -> None:
    page = constant(script("moves.js"), "MOVE_KINDS")
    assert isinstance(page, dict)
    buttons = [kind["button"] for kind in page.values() if "button" in kind]
    assert buttons and set(buttons) <= set(APP_TEXTS)
