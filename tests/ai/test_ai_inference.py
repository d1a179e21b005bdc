"""Inference (engine/ai/inference.py): what a player's moves say about his hidden cards, and
deals weighted by it."""

from __future__ import annotations

import random
import statistics

import pytest

from engine import Card, Game, Rules
from engine.ai import get_player
from engine.ai.driver import step
from engine.ai.inference import SLIP, UNLIKE, hand_weights, slips
from engine.ai.search import HardPlayer
from engine.cards import CARDS
from engine.sampling import sample
from tests.helpers.deals import PASS, TAKE, attack, card, deal, defend, transfer
from tests.helpers.positions import positions

# Seat 1 leads; seat 0 watches. Hearts are trump; the stock holds 12 cards.
HANDS = ("10d Jd Qd Kd Ad 7s", "6s 7c 9s 8s Js 9h")
STOCK = "6d 7d 8d 9d 6c 8c 9c Jc Qc Kc Ac 6h"
# The weight of a card that a move excludes while nothing yet shows that he plays unlike `normal`.
FIRST = SLIP + (1 - SLIP) * UNLIKE


def weights_of_seat_1(g: Game) -> dict[Card, float]:
    return {CARDS[c]: w for c, w in hand_weights(g.view(0))[1].items()}


def test_a_lead_over_a_cheaper_plain_card_makes_the_cheaper_cards_unlikely() -> None:
    g = deal(*HANDS, stock=STOCK, first_attacker=1)
    g.apply(1, attack("9s"), 1.0)
    w = weights_of_seat_1(g)
    # He held 6♠ and 7♣ and led 9♠: a sensible player leads the six.
    assert w[card("6s")] == pytest.approx(FIRST)
    assert w[card("7c")] == pytest.approx(FIRST)
    # One rank lower only if he had no other nine (a pair is worth leading); trumps and higher
    # cards say nothing.
    assert FIRST < w[card("8s")] < 0.9
    assert card("9h") not in w and card("Js") not in w
    assert hand_weights(g.view(0))[0] == {}, "the seat's own moves say nothing to itself"


def test_a_trump_lead_says_he_had_no_plain_card() -> None:
    g = deal("10d Jd Qd Kd Ad 7s", "6s 7h 9s 8s Js 9h", stock=STOCK, first_attacker=1)
    g.apply(1, attack("7h"), 1.0)
    w = weights_of_seat_1(g)
    for plain in ("6s", "8s", "Js", "6c", "Qc"):
        assert w[card(plain)] == pytest.approx(FIRST)
    assert card("9h") not in w   # a trump two ranks higher is not excluded


def test_a_pass_with_a_card_of_the_tables_rank_makes_that_card_unlikely() -> None:
    g = deal("10d Jd Qd Kd Ad 7s", "6s 7c 9s 8s Js 9h", stock=STOCK, first_attacker=1)
    g.apply(1, attack("6s"), 1.0)
    g.apply(0, defend("7s", 0), 2.0)
    g.apply(1, PASS, 3.0)
    w = weights_of_seat_1(g)
    assert w[card("7c")] == pytest.approx(FIRST)   # the seven on the table: he would throw it
    assert w[card("6c")] == pytest.approx(FIRST)
    assert card("9c") not in w


def test_a_take_of_one_card_with_the_stock_empty_says_he_cannot_beat_it() -> None:
    g = deal("6s 7s", "8c 9c", trump="h", first_attacker=0)
    g.apply(0, attack("6s"), 1.0)
    g.apply(1, TAKE, 2.0)
    w = weights_of_seat_1(g)
    for beater in ("8s", "As", "6h", "Ah"):
        assert w[card(beater)] == pytest.approx(FIRST)
    assert card("6d") not in w


def test_a_take_with_one_card_left_unbeaten_says_he_cannot_beat_that_card() -> None:
    g = deal("6s 9c 8d", "9s Jd Qd", trump="h", first_attacker=0)
    g.apply(0, attack("6s"), 1.0)
    g.apply(1, defend("9s", 0), 2.0)
    g.apply(0, attack("9c"), 3.0)
    g.apply(1, TAKE, 4.0)
    w = weights_of_seat_1(g)
    for beater in ("10c", "Ac", "6h", "Ah"):
        assert w[card(beater)] == pytest.approx(FIRST)
    assert card("6c") not in w
    # Beating the six with a nine says little of the seven: a new rank, dearer to open unless
    # he held another seven.
    assert w[card("7s")] > 0.5


def test_a_late_trump_lead_says_he_had_no_plain_card() -> None:
    """With the stock low `normal` leads from its whole hand, cheapest first unless a pair or a
    card the defender cannot beat is worth more: a king of trumps is worth more than both."""
    g = deal("10d Jd Qd Kd Ad 7s", "6s 7c 9s 8s Js Kh", stock="6d 7d 6h", first_attacker=1)
    g.apply(1, attack("Kh"), 1.0)
    w = weights_of_seat_1(g)
    for plain in ("6c", "Qc", "Ac", "9d"):
        assert w[card(plain)] == pytest.approx(FIRST)
    assert card("7h") not in w and card("Ah") not in w


def test_a_late_plain_lead_says_nothing_a_bonus_could_explain() -> None:
    g = deal("10d Jd Qd Kd Ad 7s", "6s 7c 9s 8s Js Kh", stock="6d 7d 6h", first_attacker=1)
    g.apply(1, attack("Js"), 1.0)
    assert hand_weights(g.view(0))[1] == {}


def test_defending_where_a_plain_transfer_was_open_makes_the_rank_unlikely() -> None:
    g = deal("6s 7s 8s 9s 10s Js", "Qd Kd Ad 10c 10h Jh", stock=STOCK, first_attacker=0,
             variant="transfer")
    g.apply(0, attack("6s"), 1.0)
    g.apply(1, TAKE, 2.0)
    w = weights_of_seat_1(g)
    assert w[card("6c")] == pytest.approx(FIRST) and w[card("6d")] == pytest.approx(FIRST)
    assert card("6h") not in w   # a trump transfer is kept for when defending costs more


def test_a_transfer_is_not_read_as_a_refusal_to_transfer() -> None:
    g = deal("6s 7s 8s 9s 10s Js", "7c Kd Ad 10c 10h Jh", stock=STOCK, first_attacker=0,
             variant="transfer")
    g.apply(0, attack("7s"), 1.0)
    g.apply(1, transfer("7c"), 2.0)
    assert hand_weights(g.view(0))[1] == {}


def test_cards_he_drew_since_bring_the_weights_back_up() -> None:
    g = deal(*HANDS, stock=STOCK, first_attacker=1)
    g.apply(1, attack("9s"), 1.0)
    g.apply(0, TAKE, 2.0)
    g.advance(g.next_deadline)   # the window closes: seat 1 draws one card, seat 0 took
    view = g.view(0)
    assert view.hand_counts[1] == 6
    w = weights_of_seat_1(g)
    # One of his six hidden cards is new: the six of spades was his then with chance 5/6.
    assert w[card("6s")] == pytest.approx(1 - 5 / 6 * (1 - FIRST))


def test_a_timeouts_forced_move_says_nothing() -> None:
    g = deal("6s 7s", "8c 9c", trump="h", first_attacker=0)
    g.apply(0, attack("6s"), 1.0)
    g.advance(g.turn_due)   # seat 1's turn runs out: the engine takes for him (R10.2)
    assert g.taking
    assert hand_weights(g.view(0))[1] == {}


def test_slip_one_weighs_nothing() -> None:
    g = deal(*HANDS, stock=STOCK, first_attacker=1)
    g.apply(1, attack("9s"), 1.0)
    assert all(w == 1.0 for w in hand_weights(g.view(0), slip=1.0)[1].values())


def test_a_weighted_deal_still_shows_the_seat_its_view_and_deals_unlikely_cards_less() -> None:
    rng = random.Random(5)
    checked = 0
    for g, seat in positions(seed=31, games=30, every=4):
        view = g.view(seat)
        other = next(s for s in range(g.rules.players) if s != seat)
        hidden = view.hand_counts[other] - len(view.known[other])
        if hidden < 2 or not hidden + 4 <= len(view.unseen) <= 4 * hidden:
            continue   # the card would seldom be his even unweighted
        unlikely = view.unseen[0].index
        weights = tuple({unlikely: 0.01} if s == other else {} for s in range(g.rules.players))
        dealt = [sample(view, rng, weights) for _ in range(60)]
        assert all(d.view(seat) == view for d in dealt)
        uniform = sum(sample(view, rng).hands[other] >> unlikely & 1 for _ in range(60))
        weighted = sum(d.hands[other] >> unlikely & 1 for d in dealt)
        assert weighted <= 3 and uniform >= 6, (weighted, uniform)
        checked += 1
        if checked == 5:
            break
    assert checked == 5


def test_taking_one_plain_card_early_says_he_has_no_plain_beater_of_it() -> None:
    """With a full stock `normal` beats a plain card with any plain card rather than take."""
    g = deal("6s 7s 8s 9s 10s Js", "Qd Kd Ad 10c 10h Jh", stock=STOCK, first_attacker=0)
    g.apply(0, attack("6s"), 1.0)
    g.apply(1, TAKE, 2.0)
    w = weights_of_seat_1(g)
    assert w[card("Qs")] == pytest.approx(FIRST) and w[card("As")] == pytest.approx(FIRST)
    assert card("6h") not in w and card("Ah") not in w   # a trump may be worth keeping


def test_beating_with_a_trump_says_he_had_no_plain_beater_much_cheaper() -> None:
    g = deal("6s 7s 8s 9s Qs Js", "Qd Kd Ad 10c 10h Jh", stock=STOCK, first_attacker=0)
    g.apply(0, attack("6s"), 1.0)
    g.apply(1, defend("10h", 0), 2.0)
    w = weights_of_seat_1(g)
    assert w[card("Ks")] == pytest.approx(FIRST)   # more than nine cheaper: any rank
    assert w[card("10s")] == pytest.approx(FIRST)  # cheaper, and of a rank on the table
    # An ace opens a new rank that costs more than the difference unless he held other aces;
    # a cheaper trump costs the same unless he held all the other cards of its rank.
    assert FIRST < w[card("As")] < 1 and w.get(card("7h"), 1.0) > 0.9
    assert card("Ah") not in w


def test_any_history_on_any_table_gives_weights_of_unseen_cards_of_other_seats() -> None:
    """Random games on every kind of table (random moves say many unlikely things)."""
    weighed = 0
    for g, seat in positions(seed=41, games=60, every=5):
        view = g.view(seat)
        weights = hand_weights(view)
        unseen = {c.index for c in view.unseen}
        assert weights[seat] == {}
        for s, w in enumerate(weights):
            assert set(w) <= unseen, s
            assert all(SLIP - 1e-9 <= x < 1 for x in w.values())
        weighed += any(weights)
    assert weighed > 50


def test_hard_deals_the_hidden_cards_as_the_moves_suggest() -> None:
    for g, seat in positions(seed=43, games=40, every=3):
        view = g.view(seat)
        if view.stock_count < 6:
            continue
        weights = hand_weights(view)
        other = max(range(len(weights)), key=lambda s: len(weights[s]))
        unlikely = [c for c, w in weights[other].items() if w <= 0.3]
        if len(unlikely) >= 2:
            break
    else:
        pytest.fail("no position with two unlikely cards")

    def dealt_to_him(player: HardPlayer) -> int:
        deal_of = player._dealer(view)
        rng = random.Random(7)
        return sum((deal_of(rng).hands[other] & mask).bit_count() for _ in range(100))

    mask = sum(1 << c for c in unlikely)
    assert dealt_to_him(HardPlayer()) * 3 < dealt_to_him(HardPlayer(slip=1.0))
    with pytest.raises(ValueError):
        HardPlayer(slip=0.0)


def test_a_card_he_played_that_his_move_had_excluded_makes_his_moves_trusted_less() -> None:
    g = deal(*HANDS, stock=STOCK, first_attacker=1)
    g.apply(1, attack("9s"), 1.0)      # says: no 6♠, no 7♣
    before = slips(g.view(0))[1]
    assert before == pytest.approx(FIRST)
    g.apply(0, TAKE, 2.0)
    g.advance(g.next_deadline)         # he draws one card, and leads again
    g.apply(1, attack("6s"), g.next_deadline)   # the six he held when he led the nine
    after = slips(g.view(0))[1]
    assert after > 1.5 * before
    w = weights_of_seat_1(g)
    # The seven his first lead excluded is now dealt to him more often than the lead alone said.
    assert w[card("7c")] > 1 - 5 / 6 * (1 - before) + 0.05


@pytest.mark.parametrize("variant", ["throw-in", "transfer"])
def test_a_player_who_plays_like_normal_stays_trusted_and_a_random_one_does_not(
        variant: str) -> None:
    def end_slips(name: str) -> list[float]:
        player, rng, out = get_player(name), random.Random(3), []
        for i in range(40):
            g = Game.new(Rules(variant=variant, players=2), f"trust/{i}")
            now = 0.0
            while not g.is_over:
                now = step(g, lambda g, s, legal: player.choose(g.view(s), legal, rng), now)
            out.append(slips(g.view(0))[1])
        return out

    trusted, random_ = statistics.median(end_slips("normal")), statistics.median(end_slips("easy"))
    assert trusted < 0.2 and random_ > max(0.3, 2 * trusted)
