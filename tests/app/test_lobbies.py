"""The lobby's rules (tg_durak/lobbies.py): settings, who may do what, what a tap becomes."""

from __future__ import annotations

import pytest

from engine import ThrowIn, Variant
from tg_durak.play.lobby_rules import DEFAULT_SEATS, Lobby, LobbySettings, message_link
from tg_durak.play.options import OptionField, TableOptions
from tg_durak.play.rows import SeatRow, TableRow

HOST, BOB, CAT = 1, 2, 3


def lobby(*seated: int | None, seats: int = 4, deck: int = 36) -> Lobby:
    rows = tuple(SeatRow(i, uid, f"p{uid}", None if uid else "easy")
                 for i, uid in enumerate(seated))
    return Lobby(7, HOST, LobbySettings(TableOptions(deck=deck), seats), rows)


def test_settings_round_trip_and_unreadable_values_fall_back() -> None:
    s = LobbySettings(TableOptions(variant=Variant.TRANSFER, deck=52, show_trump=True), 6)
    assert LobbySettings.from_dict(s.to_dict()) == s
    assert LobbySettings.from_dict(None) == LobbySettings()
    assert LobbySettings.from_dict({"seats": "6"}).seats == DEFAULT_SEATS
    assert LobbySettings.from_dict({"seats": 1}).seats == DEFAULT_SEATS
    assert LobbySettings.from_dict({"deck": 24, "seats": 6}).seats == 4   # 24 cards seat 4


@pytest.mark.parametrize("seats", [1, 7, True, "3"])
def test_seats_outside_two_to_six_are_refused(seats: object) -> None:
    with pytest.raises(ValueError):
        LobbySettings(seats=seats)


def test_a_row_reads_as_its_lobby() -> None:
    row = TableRow(5, -100, "group", "lobby", {"deck": 52, "seats": 3}, None, 0,
                   (SeatRow(0, BOB, "Bob"),), 0.0, 0.0, host_id=HOST)
    read = Lobby.of(row)
    assert (read.table_id, read.host_id, read.settings.seats, read.people) == (5, HOST, 3, (BOB,))
    assert read.settings.options.deck == 52


def test_joining() -> None:
    assert lobby(HOST).join_refusal(BOB) is None
    already = lobby(HOST, BOB).join_refusal(BOB)
    assert already.key == "lobby.already_in" and not already.alert
    full = lobby(HOST, BOB, seats=2).join_refusal(CAT)
    assert full.key == "lobby.full" and full.alert


def test_computers_need_a_free_seat_and_a_known_strength() -> None:
    assert lobby(HOST).computer_refusal("hard") is None
    assert lobby(HOST).computer_refusal("godlike").key == "tap.unknown"
    assert lobby(HOST, None, seats=2).computer_refusal("easy").key == "lobby.full"


def test_only_the_host_or_an_admin_manages() -> None:
    assert lobby().may_manage(HOST, admin=False)
    assert lobby().may_manage(BOB, admin=True)
    assert not lobby().may_manage(BOB, admin=False)


def test_start_needs_the_host_two_seats_and_a_person() -> None:
    assert lobby(HOST, BOB).start_refusal(BOB, admin=False).key == "lobby.host_only"
    assert lobby(HOST, BOB).start_refusal(HOST, admin=False) is None
    assert lobby(HOST, BOB).start_refusal(CAT, admin=True) is None
    assert lobby(HOST).start_refusal(HOST, admin=False).key == "lobby.too_few"
    assert lobby(None, None).start_refusal(HOST, admin=False).key == "lobby.no_people"


def test_options_change_through_play_settings_and_keep_the_seated() -> None:
    changed = lobby(HOST).with_option(OptionField.THROW_IN, "neighbours")
    assert changed.options.throw_in == ThrowIn.NEIGHBOURS and changed.seats == 4
    assert lobby(HOST).with_option(OptionField.DECK, "37").key == "tap.unknown"
    assert lobby(HOST).with_option(OptionField.SHOW_TRUMP, "1").key == "tap.unknown"
    small = lobby(HOST, BOB, seats=6).with_option(OptionField.DECK, "24")
    assert (small.options.deck, small.seats) == (24, 4)   # the seats shrink to the deck
    crowded = lobby(HOST, BOB, CAT, None, None, seats=6).with_option(OptionField.DECK, "24")
    assert crowded.key == "lobby.too_many_for_deck" and crowded.params == {"n": 4}


def test_seats_change_within_the_deck_and_above_the_seated() -> None:
    assert lobby(HOST).with_seats("6").seats == 6
    assert lobby(HOST, BOB, CAT).with_seats("2").key == "lobby.seats_taken"
    assert lobby(HOST, deck=24).with_seats("5").key == "tap.unknown"
    for forged in ("1", "7", "x", "", "-3"):
        assert lobby(HOST).with_seats(forged).key == "tap.unknown"


def test_final_seats_are_numbered_in_join_order() -> None:
    rows = (SeatRow(0, HOST, "Ann"), SeatRow(3, None, "", "hard"), SeatRow(5, BOB, "Bob"))
    final = Lobby(1, HOST, LobbySettings(), rows).final_seats()
    assert [(s.seat, s.user_id, s.level) for s in final] == [
        (0, HOST, None), (1, None, "hard"), (2, BOB, None)]


def test_message_links_exist_for_supergroups_only() -> None:
    assert message_link(-1001234567890, 42) == "https://t.me/c/1234567890/42"
    assert message_link(-4242, 42) is None
