"""The frames a page sends up are read strictly: anything but our frames is a BadFrame."""

import json

import pytest

from engine import Card, Variant
from engine.actions import ActionKind
from tg_durak.play.taps import APP_MOVES, Attack, Beat, Pass, ShowTrump, Take, TransferWith
from tg_durak.render.app_state import quick_frame_fields
from tg_durak.render.quick_taps import QuickTap, QuickVerb
from tg_durak.webapp.frames import (
    MAX_FRAME,
    Again,
    BadFrame,
    Hello,
    Join,
    MoveFrame,
    Ping,
    QuickFrame,
    Start,
    read_frame,
)


def frame(**fields: object) -> str:
    return json.dumps(fields)


def test_each_move_becomes_the_tap_a_chat_button_makes() -> None:
    def tap(**move: object) -> object:
        read = read_frame(frame(type="move", id=3, version=7, **move))
        assert isinstance(read, MoveFrame) and (read.id, read.version) == (3, 7)
        return read.tap

    ten = Card.parse("10h").index
    assert tap(move="attack", card="10h") == Attack(ten)
    assert tap(move="defend", card="10h", target=2) == Beat(ten, 2)
    assert tap(move="transfer", card="Qs") == TransferWith(Card.parse("Qs").index)
    assert tap(move="show_trump", card="6d") == ShowTrump(Card.parse("6d").index)
    assert tap(move="take") == Take()
    assert tap(move="pass") == Pass()


def test_the_page_may_send_every_kind_of_move_the_engine_has() -> None:
    assert set(APP_MOVES) == set(ActionKind)


def test_a_quick_frame_is_the_tap_a_chat_button_makes() -> None:
    """What the state offers (quick_frame_fields) comes back as the same QuickTap."""
    for tap in (QuickTap(QuickVerb.CHOOSE, Variant.TRANSFER, 3, 24, 15),
                QuickTap(QuickVerb.FIND, Variant.THROW_IN, 6, 52, 60)):
        assert read_frame(frame(type="quick", id=4, **quick_frame_fields(tap))) == \
            QuickFrame(4, tap)
    # Leave and Start carry nothing but the verb (whatever else comes is not read).
    for verb in (QuickVerb.LEAVE, QuickVerb.START):
        assert read_frame(frame(type="quick", id=5, verb=verb.value, players="x")) == \
            QuickFrame(5, QuickTap(verb))


def test_hello_join_start_again_and_ping() -> None:
    assert read_frame(frame(type="hello", init_data="a=b")) == Hello("a=b")
    assert read_frame(frame(type="join", id=1)) == Join(1)
    assert read_frame(frame(type="start", id=3)) == Start(3)
    assert read_frame(frame(type="again", id=2)) == Again(2)
    assert read_frame(frame(type="ping")) == Ping()


@pytest.mark.parametrize("text", [
    "not json", "[]", "null", frame(type="dance"), frame(id=1),
    frame(type="hello"), frame(type="hello", init_data=5),
    frame(type="move", id=1, version=0, move="attack", card="1h"),
    frame(type="move", id=1, version=0, move="attack", card="10♥"),
    frame(type="move", id=1, version=0, move="attack", card=" 10h"),
    frame(type="move", id=1, version=0, move="attack"),
    frame(type="move", id=1, version=0, move="defend", card="10h"),
    frame(type="move", id=1, version=0, move="defend", card="10h", target=-1),
    frame(type="move", id=1, version=0, move="defend", card="10h", target=True),
    frame(type="move", id=1, version=-1, move="take"),
    frame(type="move", id=1, version=1.5, move="take"),
    frame(type="move", id="1", version=0, move="take"),
    frame(type="move", id=1, version=2**60, move="take"),
    frame(type="move", id=1, version=0, move="resign"),
    frame(type="move", id=1, version=0, move=["take"]),
    frame(type="join"),
    frame(type="start"), frame(type="start", id=-1),
    frame(type="quick", id=1), frame(type="quick", id=1, verb="o"),   # the chat's menu only
    frame(type="quick", id=1, verb=["l"]), frame(type="quick", verb="l"),
    frame(type="quick", id=1, verb="f", variant="throw-in", players=2, deck=36),
    frame(type="quick", id=1, verb="f", variant="bridge", players=2, deck=36, wait=30),
    frame(type="quick", id=1, verb="c", variant="throw-in", players=6, deck=24, wait=30),
    frame(type="quick", id=1, verb="c", variant="throw-in", players=7, deck=36, wait=30),
    frame(type="quick", id=1, verb="c", variant="throw-in", players=2, deck=36, wait=7),
    frame(type="quick", id=1, verb="c", variant="throw-in", players="2", deck=36, wait=30),
])
def test_anything_else_is_a_bad_frame(text: str) -> None:
    with pytest.raises(BadFrame) as refused:
        read_frame(text)
    assert refused.value.code == "bad_frame"


def test_a_frame_over_the_limit_is_too_big() -> None:
    with pytest.raises(BadFrame) as refused:
        read_frame(frame(type="hello", init_data="x" * MAX_FRAME))
    assert refused.value.code == "too_big"
