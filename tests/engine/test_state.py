"""The game's fields are declared once (engine/state.py): slots, constructors, copy and snapshots
all cover exactly the declared fields, and snapshots written before the declaration still load."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from engine import Game, Rules
from engine.sampling import sample
from engine.state import DERIVED, FIELDS, FIXED, LOG, SAVED, SLOTS
from tests.helpers.deals import PASS, attack, deal, transfer

OLD_SNAPSHOTS = Path(__file__).parent / "data" / "format1_snapshots.json"


def mid_game() -> Game:
    """A transfer game (the whole 24-card deck dealt) after a lead, a transfer and a pass."""
    game = deal("9s 10s Jc Qd Kh Ac", "9d 10c Jd Qs Ks Ad", "9c 10d Js Qc Kc 10h",
                stock="Jh Qh 9h Kd As Ah", variant="transfer", show_trump=True, deck=24)
    game.apply(0, attack("9s"), 1.0)
    game.apply(1, transfer("9d"), 2.0)
    game.apply(0, PASS, 2.5)
    return game


def every_constructor() -> dict[str, Game]:
    game = mid_game()
    return {
        "new": Game.new(Rules(players=3), seed=5),
        "from_deal": game,
        "copy": game.copy(),
        "copy without log": game.copy(with_log=False),
        "from_dict": Game.from_dict(game.to_dict()),
        "replay": Game.replay(game.to_dict()),
        "from_view": sample(game.view(2), random.Random(1)),
    }


def test_state_slots_are_the_declared_fields() -> None:
    assert Game.__slots__ == SLOTS
    assert len(set(SLOTS)) == len(SLOTS), "a field is declared twice"


@pytest.mark.parametrize(("how", "game"), every_constructor().items())
def test_state_every_constructor_sets_every_declared_field(how: str, game: Game) -> None:
    missing = [f.name for f in FIELDS if not hasattr(game, f.name)]
    assert missing == [], f"Game.{how} leaves {missing} unset"


def test_state_copy_copies_every_field_and_shares_no_mutable_one() -> None:
    game = mid_game()
    copy = game.copy()
    for f in FIELDS:
        original, copied = getattr(game, f.name), getattr(copy, f.name)
        assert copied == original, f.name
        if f.kind.mutable:
            assert copied is not original, f"copy() shares the list {f.name}"
    assert game.copy(with_log=False).log == []


def test_state_snapshot_saves_every_field_but_the_fixed_and_derived_ones() -> None:
    """Each field is either in the snapshot's state, or fixed/derived/the log, never both."""
    unsaved = {f.name for f in FIELDS if f.kind in (FIXED, DERIVED, LOG)}
    saved = {f.name for f in SAVED}
    assert saved | unsaved == set(SLOTS) and not saved & unsaved
    state = mid_game().to_dict()["state"]
    assert set(state) == {f.json for f in SAVED}


def test_state_from_dict_restores_every_field_derived_ones_included() -> None:
    game = mid_game()
    restored = Game.from_dict(game.to_dict())
    for f in FIELDS:
        assert getattr(restored, f.name) == getattr(game, f.name), f.name


def old_snapshot(index: int) -> dict:
    return json.loads(OLD_SNAPSHOTS.read_text(encoding="utf-8"))[index]


def test_state_reads_a_format_1_snapshot_written_before_the_fields_were_declared() -> None:
    """A snapshot in a user's database (written by the engine of issue 2, mid-round, just after
    seat 1 showed a trump to pass 0's attack on to 2) loads, replays, and is written back with
    R9.1's roles: 0 began the round, 1 attacks now."""
    old = old_snapshot(0)
    game = Game.from_dict(old)
    assert game.to_dict() == {**old, "state": {**old["state"], "round_starter": 0, "attacker": 1}}
    assert Game.replay(old).to_dict() == game.to_dict()
    for seat in game.active_seats:  # the restored game goes on
        for action in game.legal_actions(seat):
            game.copy().apply(seat, action, game.next_deadline or 0.0)


def test_state_an_old_finished_game_replays_to_its_result_ending_sooner() -> None:
    """A finished game of issue 2's engine loads as it was; replaying its log under R8.5 ends
    it as soon as it was decided (two entries early), with the same durak and ranking."""
    old = old_snapshot(1)
    game = Game.from_dict(old)
    assert game.to_dict() == {**old, "state": {**old["state"], "round_starter": 3}}
    replayed = Game.replay({**old, "log": []})
    for entry in old["log"]:
        if replayed.is_over:
            break
        replayed.replay_entry(Game.entry_from_json(entry))
    assert replayed.version == len(old["log"]) - 2
    assert (replayed.durak, replayed.finished_order) == (game.durak, game.finished_order)


def test_state_rules_read_again_are_the_same_and_a_value_of_another_type_is_still_checked(
) -> None:
    written = Rules(players=3, turn_seconds=20.0).to_dict()
    assert Rules.from_dict(json.loads(json.dumps(written))) is Rules.from_dict(written)
    assert Rules.from_dict(written) == Rules(players=3, turn_seconds=20.0)
    for wrong in ({"players": 3.0}, {"show_trump": 1}, {"bot_delay": [[1.5], 3.0]}):
        with pytest.raises(ValueError):
            Rules.from_dict({**written, **wrong})
    with pytest.raises(TypeError):
        Rules.from_dict({**written, "stakes": 1})


@pytest.mark.parametrize("key", ["active", "passed", "shown"])
def test_state_a_seat_mask_naming_a_seat_beyond_the_table_is_refused(key: str) -> None:
    d = mid_game().to_dict()
    with pytest.raises(ValueError, match="out of range"):
        Game.from_dict({**d, "state": {**d["state"], key: 1 << 3 | 1 << 40}})
