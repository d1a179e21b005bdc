"""Replaying the last rounds on a deal (engine/ai/replay.py): round starts rebuilt exactly, moves
judged against `normal`, and deals kept as likely as the moves they replay."""

from __future__ import annotations

import random
import time

import pytest

from engine import Game, Rules
from engine.actions import EventKind
from engine.ai.driver import seats_to_ask, step
from engine.ai.policy import normal_action
from engine.ai.replay import FADE, ROUNDS, Past, factor, likely_deal, round_starts, unlike_normal
from engine.ai.search import HardPlayer, deals
from engine.cards import bits_of
from engine.sampling import sample
from engine.state import DERIVED, FIELDS
from tests.helpers.deals import PASS, TAKE, attack, card, deal
from tests.helpers.positions import any_rules, positions

# Not rebuilt: clocks, the seed, the log (a rebuilt start replays moves at time 0).
_SKIP = {"history", "log", "initial", "seed", "turn_due", "window_due", "close_due", "timeouts"}
HANDS = ("10d Jd Qd Kd Ad 7s", "6s 7c 9s 8s Js 9h")
# The rest of the 36-card deck; hearts are trump.
STOCK = "6d 7d 8d 9d 6c 8c 9c 10c Jc Qc Kc Ac 10s Qs Ks As 7h 8h 10h Jh Qh Kh Ah 6h"


def _recorded_games(seed: int, games: int):
    """(game at a decision, its round starts by history index, the cards each draw drew, the
    cards known since the deal) along games of `normal` on random tables."""
    rng = random.Random(seed)
    for i in range(games):
        g = Game.new(any_rules(rng), f"replay/{i}")
        setup = list(g.known)
        starts, draws, now = {0: g.copy(with_log=False)}, {}, 0.0
        while not g.is_over:
            hands, begin = list(g.hands), len(g.history)
            table = sum(1 << c for c in g.attacks + g.defences if c >= 0)
            now = step(g, normal_action, now)
            for k in range(begin, len(g.history)):
                e = g.history[k]
                if e.kind == EventKind.DRAW:
                    draws[k] = g.hands[e.seat] & ~hands[e.seat] & ~table
                elif e.kind == EventKind.ROUND:
                    starts[k + 1] = g.copy(with_log=False)
            if not g.is_over and seats_to_ask(g):
                yield g, starts, draws, setup


def test_round_starts_with_the_real_draws_are_the_real_round_starts() -> None:
    checked = 0
    for g, starts, draws, setup in _recorded_games(seed=5, games=12):
        def drawn(i: int, seat: int, candidates: int, count: int, draws=draws) -> list[int]:
            # The face-up trump card is put back by the replay itself, so not a candidate.
            cards = bits_of(draws[i] & candidates)
            assert len(cards) == count, "a drawn card was not a candidate"
            return cards

        begins = sorted(starts, reverse=True)
        rebuilt = list(round_starts(g, random.Random(0), rounds=99, drawn=drawn))
        assert len(rebuilt) == len(begins)
        for (start, _), begin in zip(rebuilt, begins, strict=True):
            real = starts[begin]
            for f in FIELDS:
                if f.kind is DERIVED or f.name in _SKIP:
                    continue
                mine, theirs = getattr(start, f.name), getattr(real, f.name)
                if f.name == "stock":   # its order below the face-up card says nothing
                    mine, theirs = sorted(mine), sorted(theirs)
                if f.name == "known":   # R3.1's card: nobody can tell it once it is played
                    mine = [k & ~s for k, s in zip(mine, setup, strict=True)]
                    theirs = [k & ~s for k, s in zip(theirs, setup, strict=True)]
                assert mine == theirs, (f.name, begin)
            checked += 1
    assert checked > 1000


def test_the_real_deal_replays_without_a_move_unlike_normal_in_the_current_round() -> None:
    """Everyone played `normal`: the current round (no draw in it to guess) shows no miss, and
    with nothing ever drawn (six players) no round does."""
    six = Rules(variant="transfer", players=6)
    for g, _, _, _ in _recorded_games(seed=6, games=10):
        missed = list(unlike_normal(g, -1, random.Random(1), rounds=99))
        assert missed and not any(missed[0])
        if g.rules == six or not any(e.kind == EventKind.DRAW for e in g.history):
            assert not any(map(any, missed))


def test_any_history_on_any_table_replays_on_every_deal_of_the_view() -> None:
    """Random moves, timeouts, every table kind: on deals from the view the rounds replay without
    an error, and on the real game every round can have happened."""
    replayed = 0
    for g, seat in positions(seed=47, games=40, every=7):
        view = g.view(seat)
        rounds = 1 + sum(e.kind == EventKind.ROUND for e in g.history)
        real = list(unlike_normal(g, seat, random.Random(2)))
        assert len(real) == min(rounds, ROUNDS)
        rng = random.Random(3)
        for _ in range(3):
            missed = list(unlike_normal(sample(view, rng), seat, rng))
            assert all(m >= 0 for seats in missed for m in seats)
            replayed += bool(missed)
    assert replayed > 100


def test_a_history_that_cannot_have_happened_stops_the_replay_without_an_error() -> None:
    g = deal(*HANDS, stock=STOCK, first_attacker=1)
    g.apply(1, attack("6s"), 1.0)
    g.apply(0, TAKE, 2.0)
    g.apply(1, PASS, 3.0)
    while g.history[-1].kind != EventKind.ROUND:
        g.advance(g.next_deadline)
    forged = g.copy(with_log=False)
    forged.hands[0] &= ~(1 << card("6s").index)   # he took it, and it is gone
    assert len(list(unlike_normal(forged, 0, random.Random(0)))) <= 1
    assert isinstance(likely_deal(lambda _: forged, Past.of(forged), 0, (0.1, 0.1), ROUNDS,
                                  random.Random(0)), Game)


def test_a_lead_unlike_normal_keeps_fewer_deals_in_which_normal_leads_otherwise() -> None:
    g = deal(*HANDS, stock=STOCK, first_attacker=1)
    g.apply(1, attack("9s"), 1.0)   # he held 6♠: `normal` leads it
    view = g.view(0)

    def share_consistent(replay: int) -> float:
        deal_of, rng = deals(view, replay=replay), random.Random(11)
        kept = [deal_of(rng) for _ in range(300)]
        return sum(not any(next(unlike_normal(d, 0, rng))) for d in kept) / len(kept)

    weighted, replayed = share_consistent(0), share_consistent(1)
    assert replayed > 0.9 and replayed > weighted + 0.1, (weighted, replayed)


def test_each_seat_is_held_to_his_moves_as_far_as_his_own_slip_says() -> None:
    """A seat whose plays showed that his moves say nothing (slip 1) keeps every first deal, as
    weighted dealing does; one who plays like `normal` keeps mostly deals that fit his lead."""
    g = deal(*HANDS, stock=STOCK, first_attacker=1)
    g.apply(1, attack("9s"), 1.0)   # he held 6♠: `normal` leads it
    view = g.view(0)
    deal_of, past = deals(view), Past.of(g)

    def kept(slips: tuple[float, float]) -> tuple[int, int]:
        """Of 300 kept deals: how many fit his lead, how many were the first deal drawn."""
        rng, drawn = random.Random(12), []

        def drawing(r: random.Random) -> Game:
            drawn.append(deal_of(r))
            return drawn[-1]

        fit = first = 0
        for _ in range(300):
            drawn.clear()
            d = likely_deal(drawing, past, 0, slips, 1, rng)
            first += d is drawn[0]
            fit += not any(next(unlike_normal(d, 0, rng)))
        return fit, first

    (fit_untrusted, first_untrusted), (fit_trusted, _) = kept((0.1, 1.0)), kept((0.1, 0.1))
    assert first_untrusted == 300
    assert fit_trusted > 270 and fit_trusted > fit_untrusted + 30, (fit_trusted, fit_untrusted)


def test_hard_with_replay_deals_as_the_replay_keeps_and_keeps_its_budget() -> None:
    g = deal("10d Jd Qd Kd Ad 10s", HANDS[1], stock=STOCK.replace("10s", "7s"), first_attacker=1)
    g.apply(1, attack("9s"), 1.0)
    view, legal = g.view(0), g.legal_actions(0)
    assert len(legal) == 2   # beat with 10♠, or take
    player = HardPlayer(budget=0.05, replay=1)

    def consistent(dealer: HardPlayer) -> int:
        deal_of, rng = dealer._dealer(view), random.Random(4)
        return sum(not any(next(unlike_normal(deal_of(rng), 0, rng))) for _ in range(200))

    assert consistent(player) > consistent(HardPlayer()) + 20
    start = time.perf_counter()
    assert player.choose(view, legal, random.Random(5)) in legal
    assert time.perf_counter() - start < 0.05 + 0.5   # generous: the machine may be busy
    assert player.last["deals"] > 0


def test_a_miss_counts_slip_now_and_fades_towards_one_a_round_back() -> None:
    assert factor(0, 0, 0.1) == 1.0
    assert factor(0, 2, 0.1) == pytest.approx(0.01)
    assert factor(1, 1, 0.1) == pytest.approx(1 - 0.9 * FADE)
    assert factor(3, 1, 0.1) < factor(4, 1, 0.1) < 1.0


@pytest.mark.parametrize("replay", [True, -1])
def test_replay_takes_a_count_of_rounds(replay: object) -> None:
    with pytest.raises(ValueError):
        HardPlayer(replay=replay)
