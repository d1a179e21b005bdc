"""What a whole deal says of the other players' past moves: the rounds replayed on it.

`inference.py` weighs each hidden card on its own. Much of what a move says holds only together
with the rest of the hand (he led the nine, so he had no cheaper card, unless it paired with one
he holds). A deal fixes every hand, so the rounds can be played again on it: each recent round's
start is rebuilt from the deal and the history, its moves are made again, and at every move
another seat chose, `normal` (`policy.py`) is asked what it would have done with the hand the
deal gives him. A deal on which the moves look unlike `normal` is less likely to be the real one.

Going back a round undoes what happened in it: the cards played go back to the hands, the taken
cards leave the taker, the beaten ones leave the discard, and the cards drawn at its end go back
to the stock. Which of a hand's cards were drawn then the history does not say (only how many);
they are chosen at random among the cards that may have been drawn (none that anyone saw before
the draw; the face-up trump card by whoever drew the stock's last card). A round further back
therefore rests on more guessed cards, and a move there that looks wrong counts for less
(`fade`).

`likely_deal` deals by rejection: a deal is kept with its likelihood, so the deals the search
plays on follow what the moves say. Each seat's moves count with his own slip, as far as his
plays showed that his moves can be trusted (`inference.slips`): a player unlike `normal` is held
to his moves little. `bench/inference_bench.py` measures the result: the deals know more than
deals weighted card by card. The price is time (a rebuilt start is a `Game`, and several deals
may be drawn for one kept), and at equal time the search's fewer deals cost what the better ones
gain, so `hard` replays only when asked, `HardPlayer(replay=N)` replaying the last N rounds
(docs/computer-players.md).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Sequence
from typing import NamedTuple

from engine.actions import Action, Event, EventKind, IllegalMove
from engine.ai.policy import normal_action
from engine.cards import bits_of
from engine.game import Game
from engine.sampling import Dealer
from engine.state import DERIVED, FIELDS

ROUNDS = 3     # rounds replayed, the current one included (module text: what more costs)
FADE = 0.8     # per round back, what is left of a mismatch's weight against 1
# Rounds the kernel replays at most (kernel.racing.RoundSpec): a round further back would rest
# on cards drawn at two ends, guessed.
KERNEL_ROUNDS = 2
TRIES = 4      # deals drawn for one kept deal at most

_PLAYS = frozenset({EventKind.ATTACK, EventKind.DEFEND, EventKind.TRANSFER})
_MOVES = frozenset({*_PLAYS, EventKind.SHOW_TRUMP, EventKind.TAKE, EventKind.PASS})

# (index of the draw in the history, seat, mask of the cards he may have drawn, count) -> cards
Drawn = Callable[[int, int, int, int], list[int]]
_GIVEN = tuple(f.name for f in FIELDS if f.kind is not DERIVED)


class Inconsistent(Exception):
    """The history cannot have happened on this deal (a history cut short, say)."""


class _Round(NamedTuple):
    """One round of the history, read once for every deal of a decision."""

    begin: int                                     # the index of its first event
    moves: tuple[tuple[int, Action, bool], ...]   # (seat, move, chosen: not a timeout's)
    played: tuple[tuple[int, int], ...]            # (seat, the cards it played)
    shows: int                                     # seats that showed a trump
    outs: tuple[int, ...]                          # seats that went out
    table: int                                     # every card played
    draws: tuple[tuple[int, int, int], ...]        # (event index, seat, count), in order
    taker: int                                     # who took the table, -1: beaten
    starter: int                                   # -1: the first round, before its lead
    defender: int                                  # -1: the first round


class Past:
    """What the history of a view says, read once for all the deals of one decision: its
    rounds, the cards seen before each event, the cards known since the deal."""

    def __init__(self, history: Sequence[Event], known: Sequence[int], named_trump: int) -> None:
        begins = [0] + [i + 1 for i, e in enumerate(history) if e.kind == EventKind.ROUND]
        ends = [b - 1 for b in begins[1:]] + [len(history)]   # a ROUND event is not its own
        self.rounds = [_read_round(history, b, e) for b, e in zip(begins, ends, strict=True)]
        self.seen = [0]   # seen[i]: the cards in history[:i]
        for e in history:
            self.seen.append(self.seen[-1] | (1 << e.card.index if e.card is not None else 0))
        self.named = 1 << named_trump if named_trump >= 0 else 0
        # Known since the deal and not played since (R3.1's opening trump, R2.3's last card).
        self.shown = [k & ~self.seen[-1] & ~self.named for k in known]

    @classmethod
    def of(cls, g: Game) -> Past:
        return cls(g.history, g.known, g.named_trump)


def _read_round(history: Sequence[Event], begin: int, end: int) -> _Round:
    moves: list[tuple[int, Action, bool]] = []
    draws: list[tuple[int, int, int]] = []
    outs: list[int] = []
    played: dict[int, int] = {}
    shows = table = 0
    taker = starter = defender = -1
    forced = None   # a timeout's move was the engine's, and says nothing
    if begin:
        opened = history[begin - 1]
        assert opened.seat is not None and opened.to_seat is not None   # a ROUND names both
        starter, defender = opened.seat, opened.to_seat
    for i in range(begin, end):
        e = history[i]
        kind, seat = e.kind, e.seat
        if seat is None:   # only a drawn game's end names no seat, and it is none of these
            continue
        if kind == EventKind.TIMEOUT:
            forced = seat
        elif kind in _MOVES:
            moves.append((seat, Action(kind, e.card, e.target), seat != forced))
            forced = None
            if kind in _PLAYS:
                assert e.card is not None   # a play names its card
                played[seat] = played.get(seat, 0) | 1 << e.card.index
                table |= 1 << e.card.index
                if starter < 0:
                    starter = seat
            elif kind == EventKind.SHOW_TRUMP:
                shows |= 1 << seat
        elif kind == EventKind.DRAW:
            assert e.count is not None   # a draw names how many
            draws.append((i, seat, e.count))
        elif kind == EventKind.OUT:
            outs.append(seat)
        elif kind == EventKind.TAKEN:
            taker = seat
    return _Round(begin, tuple(moves), tuple(played.items()), shows, tuple(outs), table,
                  tuple(draws), taker, starter, defender)


def round_starts(deal: Game, rng: random.Random, rounds: int = ROUNDS,
                 drawn: Drawn | None = None, past: Past | None = None
                 ) -> Iterator[tuple[Game, _Round]]:
    """The starts of the last `rounds` rounds on `deal`, newest first, each with the round's
    moves; a start is built when it is asked for (an earlier one from a copy).

    `past` is `Past.of(deal)`, shared by the deals of a decision. `drawn(i, seat, candidates,
    count)` names the cards drawn at `deal.history[i]` (a test knows them); by default they are
    chosen at random among `candidates` (a mask). Raises Inconsistent if the history cannot have
    happened on the deal.
    """
    past = past or Past.of(deal)
    drawn = drawn or _at_random(rng)
    g = deal.copy(with_log=False)
    j = len(past.rounds) - 1
    for back in range(rounds):
        r = past.rounds[j]
        _unplay(g, r)
        start = _start(g, r, past, j == 0)
        if back + 1 == rounds or not j:
            yield start, r
            return
        g = start.copy(with_log=False)   # the caller plays the round on `start`
        yield start, r
        j -= 1
        _undo_close(g, past.rounds[j], past, drawn)


def unlike_normal(deal: Game, seat: int, rng: random.Random, rounds: int = ROUNDS,
                  past: Past | None = None) -> Iterator[list[int]]:
    """Per round back (first the current one), how many moves each other seat chose that
    `normal` would not have made on `deal` (a count per seat). It stops early at a round that
    cannot have happened on the deal: what it said so far stands."""
    try:
        for g, r in round_starts(deal, rng, rounds, past=past):
            missed = [0] * g.players
            for s, action, chosen in r.moves:
                if chosen and s != seat:
                    legal = g.legal_actions(s)
                    missed[s] += len(legal) > 1 and normal_action(g, s, legal) != action
                g.apply(s, action, 0.0)
            yield missed
    except (Inconsistent, IllegalMove):
        return


def factor(back: int, missed: int, slip: float, fade: float = FADE) -> float:
    """How likely `missed` moves unlike `normal`'s are, `back` rounds ago, against none: `slip`
    each in the current round, towards 1 by `fade` a round back (`1 - (1 - slip) * fade**back`).
    """
    return (1.0 - (1.0 - slip) * fade ** back) ** missed if missed else 1.0


def likely_deal(deal_of: Dealer, past: Past, seat: int,
                slips: Sequence[float], rounds: int, rng: random.Random) -> Game:
    """A deal from `deal_of`, kept with its likelihood over the last `rounds` rounds: the
    product of the `factor`s, each seat's misses counted with his own slip (`slips`, per seat:
    `inference.slips`, so a player whose moves say little is held to them little).

    Rejection: the threshold is drawn first, so a deal is dropped at the first round that brings
    its likelihood under it, the older rounds unread. If none of `TRIES` deals is kept, the one
    likeliest as far as it was read.
    """
    best, best_p = None, -1.0
    for _ in range(TRIES):
        deal = deal_of(rng)
        threshold = rng.random()
        p = 1.0
        for back, missed in enumerate(unlike_normal(deal, seat, rng, rounds, past)):
            for s, m in enumerate(missed):
                if m:
                    p *= factor(back, m, slips[s])
            if p <= threshold:
                break
        else:
            return deal
        if p > best_p:
            best, best_p = deal, p
    assert best is not None   # TRIES deals were read, each likelier than -1
    return best


def _at_random(rng: random.Random) -> Drawn:
    def drawn(i: int, seat: int, candidates: int, count: int) -> list[int]:
        cards = bits_of(candidates)
        if len(cards) < count:
            raise Inconsistent
        return rng.sample(cards, count)
    return drawn


def _unplay(g: Game, r: _Round) -> None:
    """Take back the round's moves: its cards to the hands that played them."""
    hands = g.hands
    for s, cards in r.played:
        hands[s] |= cards
    g.showed_trump &= ~r.shows
    for s in r.outs:
        if not g.active >> s & 1:
            g.active |= 1 << s
            g.out_order.remove(s)


def face_up_bottom(g: Game, past: Past) -> int:
    """The stock's face-up bottom card (the trump card), still in the stock or drawn with its
    last card and named since (-1: none, as when the deck was dealt out)."""
    return g.trump_card_index if g.trump_card_index >= 0 else past.named.bit_length() - 1


def _undo_close(g: Game, r: _Round, past: Past, drawn: Drawn) -> None:
    """Undo how a round ended: the draws (the last first), then the take or the discard."""
    bottom = face_up_bottom(g, past)
    bottom_bit = 1 << bottom if bottom >= 0 else 0
    emptied = not g.stock
    for n, (i, seat, count) in enumerate(reversed(r.draws)):
        hand = g.hands[seat]
        if emptied and not n and bottom_bit:   # he drew the last card: the face-up trump
            if not hand & bottom_bit:
                raise Inconsistent
            hand &= ~bottom_bit
            g.stock.insert(0, bottom)
            g.trump_card_index = bottom
            count -= 1
        for c in drawn(i, seat, hand & ~past.seen[i] & ~past.shown[seat] & ~bottom_bit, count):
            hand &= ~(1 << c)
            g.stock.append(c)
        g.hands[seat] = hand
    if r.taker >= 0:
        if g.hands[r.taker] & r.table != r.table:
            raise Inconsistent
        g.hands[r.taker] &= ~r.table
    else:
        g.discard &= ~r.table


def _start(g: Game, r: _Round, past: Past, first: bool) -> Game:
    """The start of round `r`, with `g`'s hands, stock and discard."""
    starter, defender = r.starter, r.defender
    if starter < 0:
        starter = g.round_starter
    if defender < 0:
        defender = next(s % g.players for s in range(starter + 1, starter + g.players)
                        if g.active >> s % g.players & 1)
    limit = g.rules.max_attack
    if first:
        limit = min(limit, g.rules.first_round_limit)
    in_stock = 0
    for c in g.stock:
        in_stock |= 1 << c
    seen = (past.seen[r.begin] | past.named) & ~in_stock
    fields = {name: getattr(g, name) for name in _GIVEN}
    fields.update(
        log=[], history=[], attacks=[], defences=[], taking=False, passes=0,
        is_over=False, durak=None, first_round=first, round_limit=limit,
        round_starter=starter, attacker=starter, defender=defender,
        attack_limit=min(limit, g.hands[defender].bit_count()),
        turn_due=0.0, window_due=None, close_due=None,
        # Known: a card seen on the table before (it came back by a take), the drawn trump card.
        known=[hand & (seen | shown) for hand, shown in zip(g.hands, past.shown, strict=True)],
    )
    return Game.from_fields(**fields)
