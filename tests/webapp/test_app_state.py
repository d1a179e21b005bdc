"""The Mini App's state frames: a seat's own hand to that seat only, the public table to an
onlooker (R11), the chat's texts as plain text, the deadlines the page draws its bars from."""

from __future__ import annotations

import json

from engine import Game
from engine.cards import CARDS
from tests.helpers.deals import attack, deal, defend
from tg_durak.i18n.translate import translator
from tg_durak.play.history import History
from tg_durak.play.lobby_rules import LobbySettings
from tg_durak.play.rows import SeatRow
from tg_durak.render.app_state import code, lobby_state, plain, seat_state, spectator_state
from tg_durak.render.game import GameScreenInput, SeatInfo
from tg_durak.render.group import GroupScreenInput, LobbyScreenInput, PublicTable

SEATS = (SeatInfo("Alice <3", False), SeatInfo("Bob", False), SeatInfo("", True, "hard"))
HANDS = ("6s 7h 9h Qd Kc Ac", "7s 8h 10h Jd Qc 6c", "8s 9s 10s 6h Kh Ah")


def game_with_a_lead() -> Game:
    game = deal(*HANDS, stock="6d 7d 8d 9d 10d", now=100.0, variant="transfer")
    game.apply(0, attack("7h"), 101.0)
    return game


def seat_input(game: Game, seat: int, now: float = 102.0) -> GameScreenInput:
    history = History.of(game)
    return GameScreenInput(table_id=5, version=game.version, view=game.view(seat),
                           legal=tuple(game.legal_actions(seat)), seats=SEATS,
                           last=history.recent, now=now,
                           played_by=history.played_by(game.table))


def cards_in(state: dict) -> set[str]:
    """Every card code anywhere in a frame."""
    found = set()

    def walk(value: object) -> None:
        if isinstance(value, dict):
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)
        elif isinstance(value, str) and value in ALL_CODES:
            found.add(value)

    walk(state)
    return found


ALL_CODES = {code(c) for c in CARDS}


def test_a_seat_sees_its_own_hand_and_moves_and_nobody_elses_cards() -> None:
    game = game_with_a_lead()
    t = translator("en")
    bob = seat_state(seat_input(game, 1), t, kind="group")
    assert bob["view"] == "seat" and bob["me"] == 1
    assert sorted(bob["hand"]) == sorted(["7s", "8h", "10h", "Jd", "Qc", "6c"])
    assert bob["pairs"] == [{"attack": "7h", "defence": None, "by": 0, "beaten_by": None}]
    assert {"move": "defend", "card": "8h", "target": 0} in bob["legal"]
    assert {"move": "transfer", "card": "7s"} in bob["legal"]
    alice_left = {"6s", "9h", "Qd", "Kc", "Ac"}
    carol = {"8s", "9s", "10s", "6h", "Kh", "Ah"}
    assert not cards_in(bob) & (alice_left | carol)   # R11: Bob's frame holds no other hand
    assert bob["clock"]["turn"] == {"due": round(game.turn_due * 1000),
                                     "total": round(game.rules.turn_seconds * 1000), "seat": 1}
    assert bob["clock"]["now"] == 102000


def onlooker_input(game: Game, closed: bool = False) -> GroupScreenInput:
    history = History.of(game)
    return GroupScreenInput(table_id=5, public=PublicTable.of(game.view(0)), seats=SEATS,
                            played_by=history.played_by(game.table), history=history.recent,
                            now=102.0, closed=closed)


def test_an_onlooker_sees_the_public_table_only() -> None:
    game = game_with_a_lead()
    state = spectator_state(onlooker_input(game), translator("ru"), version=game.version)
    assert state["view"] == "spectator" and state["me"] is None
    assert state["hand"] == [] and state["legal"] == []
    assert cards_in(state) == {"7h", "10d"}   # the card on the table and the trump card
    assert [s["cards"] for s in state["seats"]] == [5, 6, 6]
    assert state["seats"][0]["name"] == "Alice <3"   # plain text: the page sets text, not HTML
    assert "отбивается" in state["seats"][1]["role_text"]


def test_texts_are_the_chats_in_the_players_language_as_plain_text() -> None:
    game = game_with_a_lead()
    state = seat_state(seat_input(game, 0), translator("ru"), kind="private")
    told = state["text"]["last"][-1]
    assert "7♥" in told and told == plain(told)
    assert "<b>" not in state["text"]["turn"] and state["text"]["turn"]
    assert state["seats"][0]["name"] == "Ты"
    json.dumps(state)   # a frame is JSON as it is


def test_a_finished_table_offers_play_again_or_rematch_to_its_players_only() -> None:
    game = game_with_a_lead()
    inp = seat_input(game, 0)
    closed = GameScreenInput(**{**inp.__dict__, "closed": True})
    assert seat_state(closed, translator("en"), kind="private")["again"] == "again"
    group = seat_state(closed, translator("en"), kind="group")
    assert group["again"] == "rematch" and group["legal"] == [] and group["text"]["result"]
    # an onlooker's Rematch would make him host a lobby he does not sit in
    onlooker = spectator_state(onlooker_input(game, closed=True), translator("en"),
                               version=game.version)
    assert onlooker["over"] and onlooker["text"]["result"] and onlooker["again"] is None


def test_seats_go_by_short_names_where_room_is_short() -> None:
    seats = (SeatInfo("Alice Smith", False), SeatInfo("", True, "hard"),
             SeatInfo("Bob <b>", False), SeatInfo("", True, "easy"), SeatInfo("Bob Brown", False),
             SeatInfo("Carol", False))
    game = deal("6s 7h", "7s 8h", "8s 9h", "9s 10h", "10s Jh", "Js Qh", trump="d")
    inp = GameScreenInput(table_id=5, version=game.version, view=game.view(0),
                          legal=tuple(game.legal_actions(0)), seats=seats, last=(), now=1.0)
    state = seat_state(inp, translator("ru"), kind="private")
    assert [s["short"] for s in state["seats"]] == ["Ты", "🤖 1", "Bob <b>", "🤖 2", "Bob Brown",
                                                    "Carol"]
    assert state["seats"][1]["name"] == "🤖 Компьютер 1 (Сложный)"
    assert [(s["level"], s["level_text"]) for s in state["seats"][:4]] == [
        (None, None), ("hard", "Сложный"), (None, None), ("easy", "Лёгкий")]
    assert "Компьютер" not in state["text"]["header"]


def test_a_beaten_card_names_who_beat_it() -> None:
    game = game_with_a_lead()
    game.apply(1, defend("8h", 0), 102.0)
    state = seat_state(seat_input(game, 2, now=103.0), translator("en"), kind="group")
    assert state["pairs"] == [{"attack": "7h", "defence": "8h", "by": 0, "beaten_by": 1}]


def test_pass_is_offered_only_beside_a_card_to_throw_in() -> None:
    game = game_with_a_lead()   # Bob has not answered Alice's 7♥ yet
    for seat in (0, 2):   # neither Alice nor Carol holds another 7
        assert any(a.kind == "pass" for a in game.legal_actions(seat))   # the engine takes it
        offered = seat_state(seat_input(game, seat), translator("en"), kind="group")["legal"]
        assert not any(m["move"] in ("attack", "pass") for m in offered), seat
    game.apply(1, defend("8h", 0), 102.0)   # Carol holds an 8 now on the table: both offered
    offered = seat_state(seat_input(game, 2, now=103.0), translator("en"), kind="group")["legal"]
    assert {"move": "pass"} in offered and {"move": "attack", "card": "8s"} in offered


def test_the_clock_says_how_long_the_window_runs_and_its_close_grace() -> None:
    game = game_with_a_lead()
    game.apply(1, defend("8h", 0), 102.0)   # all beaten: the throw-in window opens (R6.3)
    window = seat_state(seat_input(game, 2, now=103.0), translator("en"),
                        kind="group")["clock"]["window"]
    rules = game.rules
    assert window == {"due": round((102.0 + rules.throw_in_seconds) * 1000),
                      "total": round(rules.throw_in_seconds * 1000), "closing": False}


def test_a_lobby_shows_its_options_and_start_to_its_host() -> None:
    inp = LobbyScreenInput(table_id=9, host="Alice", settings=LobbySettings.from_dict({}),
                           seated=(SeatRow(0, 501, "Alice"), SeatRow(1, None, "", "normal")))
    t = translator("ru")
    host = lobby_state(inp, t, user_id=501, may_join=False, may_start=True)["lobby"]
    assert host["can_start"] and host["joined"] and not host["can_join"]
    assert "36 карт" in host["options"]
    other = lobby_state(inp, t, user_id=502, may_join=True)["lobby"]
    assert not other["can_start"] and other["can_join"]


def test_a_thrower_with_nothing_to_throw_reads_so_on_his_own_seat_as_in_the_chat() -> None:
    game = game_with_a_lead()
    game.apply(1, defend("8h", 0), 102.0)   # Alice holds no 7 or 8 now: nothing to throw in
    t = translator("en")
    alice = seat_state(seat_input(game, 0, now=103.0), t, kind="group")
    assert not any(m["move"] == "attack" for m in alice["legal"])
    assert alice["seats"][0]["role_text"] == t("role.throwing_nothing.you")
    carol = seat_state(seat_input(game, 2, now=103.0), t, kind="group")
    assert any(m["move"] == "attack" for m in carol["legal"])   # Carol holds an 8
    assert carol["seats"][2]["role_text"] == t("role.throwing.you")
