"""What the other players' moves say about their hidden cards: weights for dealing them.

A player who led a nine while holding a six, beat a ten with a king while a jack would do, or
passed with a card of the table's rank in his hand played unlike a sensible player (the `normal`
policy, `policy.py`, which is how the search expects people to play). So a card such a move
makes unlikely is dealt to him less often (`engine.sampling.sample`'s weights): inference-weighted
deals, read from the view's history of what everyone did.

A move says something about the hand as it was then. Every card he draws later may be one of the
cards it excluded, so a card's weight comes back towards 1 as the share of his hidden cards drawn
since grows. A player slips (`slip`: a move that says the wrong thing) now and then, and people
play unlike `normal` more often than that, so no card is ever excluded outright.

The evidence kept, for the move of a seat that chose it (a timeout's forced move says nothing):

- a lead while the stock is not yet low: no plain card two ranks lower (a lead of a trump: no plain
  card at all, no trump two ranks lower); once it is low (the lead is chosen from the whole hand):
  no card cheaper than the lead by more than every bonus the lead may have had (a pair's, if
  another card of its rank may be his, and that of a card the defender cannot beat);
- a throw-in: no cheaper card of the table's ranks that it would throw in;
- a pass with room on the table: no card of the table's ranks that it would throw in;
- a defence: no cheaper beater of that card among the ranks on the table, nor one so much cheaper
  that opening its rank could not cost the difference;
- a take with one card left unbeaten: with the stock empty, no beater of it; else no beater cheap
  enough that beating it would have cost less than taking the table;
- in the transfer game, a defence or a take where a transfer was open: no plain card of the rank.

Some moves say a card is unlikely only unless he held other cards: an early lead over a plain card
one rank cheaper (unless he held a pair of the lead's rank), a defence over a cheaper beater of a
rank not on the table (unless he held enough of its rank to make opening it cheap). Those cards
get, in place of the slip, the chance of that "unless" (`_fewer_than`, each unseen card his with
his hand's share of the hidden cards).

How far a player's moves are trusted is read from his own play. Each card he plays was his at
each of his earlier moves, unless he drew it since; a move that had excluded it is one he made
unlike `normal`. Two accounts of him are weighed against each other: he plays like `normal`
(slipping with `slip`), or his moves say nothing of his hand (a player with other habits, a
searching program). Each card he plays is likelier under one or the other: under the second,
an earlier move excluded it with the chance that move excluded any card he might have held; under
the first, only if he drew it since or slipped. The weight of an excluded card is then `slip`
mixed with 1 by the chance of the second account (`UNLIKE` before anything is played). Against
`normal` it stays near `slip`; against a player whose plays keep contradicting his moves, his
moves soon weigh little (`bench/inference_bench.py --against`).
"""

from __future__ import annotations

import math

from engine.actions import Event, EventKind
from engine.ai.policy import MEAN, NORMAL, value
from engine.cards import RANK_CARDS, SUIT_CARDS, deck_mask, mask_of, parse_suit
from engine.game import BEATERS
from engine.rules import Variant
from engine.views import PlayerView

SLIP = 0.1   # chance that a player's move says the wrong thing about his hand
# The chance, before his cards show otherwise, that a player's moves say nothing of his hand:
# he plays by some other rule than `normal`'s (module text).
UNLIKE = 0.05

Weights = tuple[dict[int, float], ...]   # per seat: card index -> weight (1 unless listed)

_MOVES = frozenset({EventKind.ATTACK, EventKind.DEFEND, EventKind.TRANSFER, EventKind.TAKE,
                    EventKind.PASS, EventKind.SHOW_TRUMP})
# The most a beater of a new rank costs `normal` beyond its value: three unseen cards of it.
_NEW_RANK_MOST = math.ceil(3 * NORMAL.new_rank_cost)
# _BELOW[trump][v]: the cards worth less than v (policy.value: rank, plus 13 for a trump).
_BELOW = tuple(tuple(sum(1 << c for c in range(52) if value(c, t) < v) for v in range(27))
               for t in range(4))


def hand_weights(view: PlayerView, slip: float = SLIP, unlike: float = UNLIKE) -> Weights:
    """Per seat, the weights of the unseen cards its moves make unlikely (empty: none).

    `unlike`: the chance, before his cards show otherwise, that a player's moves say nothing of
    his hand (0: every player plays like `normal`, with `slip`)."""
    return read(view, slip, unlike)[0]


def slips(view: PlayerView, slip: float = SLIP, unlike: float = UNLIKE) -> tuple[float, ...]:
    """Per seat, the chance that a move of his says the wrong thing about his hand, as far as
    the cards he played so far tell (`slip` for a player who plays like `normal`)."""
    return read(view, slip, unlike)[1]


def read(view: PlayerView, slip: float = SLIP, unlike: float = UNLIKE
         ) -> tuple[Weights, tuple[float, ...]]:
    """`hand_weights` and `slips` from one reading of the history."""
    reader = _Reader(view, slip)
    evidence = reader.read()
    unseen = mask_of(view.unseen)
    drawn = reader.drawn   # by now, each seat's draws since the deal
    weights: list[dict[int, float]] = [{} for _ in view.hand_counts]
    seat_slips = tuple(reader.slip(seat, unlike) for seat in range(len(view.hand_counts)))
    for seat, excluded, drawn_then, doubt in evidence:
        hidden = view.hand_counts[seat] - len(view.known[seat])
        excluded &= unseen
        if hidden <= 0 or not excluded:
            continue
        was_held = _still_his(drawn[seat] - drawn_then, hidden)
        w = 1 - was_held * (1 - max(seat_slips[seat], doubt))
        into = weights[seat]
        while excluded:
            low = excluded & -excluded
            c = low.bit_length() - 1
            if w < into.get(c, 1.0):
                into[c] = w
            excluded ^= low
    return tuple(weights), seat_slips


class _Reader:
    """Replays the public part of the history: the table, the stock's and hands' sizes."""

    def __init__(self, view: PlayerView, slip: float = SLIP) -> None:
        self.normal_slip = slip
        self.view = view
        self.rules = view.rules
        self.trump = parse_suit(view.trump_suit)
        self.beaters = BEATERS[self.trump]
        self.below = _BELOW[self.trump]
        n = len(view.hand_counts)
        self.counts, self.stock = _dealt(view)
        self.drawn = [0] * n
        self.active = set(range(n))
        self.attacks: list[int] = []
        self.defences: list[int] = []
        self.limit = 0
        self.first = True
        self.taking = False
        self.defender = -1
        self.gone = 0   # the discard
        self.deck = deck_mask(self.rules.deck)
        # (seat, excluded mask, his draws then, the chance that the move excluded nothing)
        self.found: list[tuple[int, int, int, float]] = []
        # How far each seat's moves can be trusted (`slip`, module text): the cards known to be
        # his (taken from the table, a trump shown); what each of his moves excluded (mask, his
        # draws then, the share of the cards he might have held that it excluded); and the log
        # of how much likelier his plays so far are if his moves say nothing than if he plays
        # like `normal`.
        self.held = [0] * n
        self.said: list[list[tuple[int, int, float]]] = [[] for _ in range(n)]
        self.odds = [0.0] * n

    def read(self) -> list[tuple[int, int, int, float]]:
        forced = None   # the seat whose next move a timeout made
        handlers = {
            EventKind.ATTACK: self._attack, EventKind.DEFEND: self._defend,
            EventKind.TRANSFER: self._transfer, EventKind.SHOW_TRUMP: self._transfer,
            EventKind.TAKE: self._take, EventKind.PASS: self._pass,
            EventKind.TAKEN: self._close, EventKind.BEATEN: self._close,
            EventKind.DRAW: self._draw, EventKind.OUT: self._out,
        }
        for e in self.view.history:
            seat = e.seat
            if e.kind == EventKind.TIMEOUT:
                forced = seat
                continue
            handler = handlers.get(e.kind)
            if handler is not None:
                assert seat is not None   # only the game's end may name no seat
                handler(e, seat, seat != forced and seat != self.view.seat)
            if e.kind in _MOVES:
                forced = None
        return self.found

    # ---- each event: what a chosen move says, then what it changed ----------------------
    # (The events of a play name its card, of a defence its target, of a transfer the seat it
    # goes to, of a draw or a take the count: each handler asserts what it reads.)

    def _attack(self, e: Event, seat: int, chose: bool) -> None:
        assert e.card is not None
        card = e.card.index
        self._played(seat, card)
        if chose:
            self._note(seat, self._attack_says(card))
            if not self.attacks and self.stock > NORMAL.late_stock:
                self._note(seat, *self._lead_unless_pair(seat, card))
        if not self.attacks:
            self.defender = self._next(seat)
            self._open(self.defender)
        self._put(seat, card)

    def _defend(self, e: Event, seat: int, chose: bool) -> None:
        target = e.target
        assert e.card is not None and target is not None
        card = e.card.index
        self._played(seat, card)
        if chose:
            self._note(seat, self._no_transfer_says(seat))
            for cards, doubt in self._defence_says(seat, card, target):
                self._note(seat, cards, doubt)
        if 0 <= target < len(self.defences):
            self.defences[target] = card
        self.counts[seat] -= 1

    def _transfer(self, e: Event, seat: int, chose: bool) -> None:
        to_seat = e.to_seat
        assert e.card is not None and to_seat is not None
        card = e.card.index
        self._played(seat, card)
        if e.kind == EventKind.TRANSFER:
            self._put(seat, card)
        else:   # the trump shown stays in his hand, now known
            self.held[seat] |= 1 << card
        self.defender = to_seat
        self._open(to_seat)

    def _take(self, e: Event, seat: int, chose: bool) -> None:
        if chose:
            self._note(seat, self._take_says() | self._no_transfer_says(seat))
        self.taking = True

    def _pass(self, e: Event, seat: int, chose: bool) -> None:
        if chose:
            self._note(seat, self._pass_says())

    def _close(self, e: Event, seat: int, chose: bool) -> None:
        if e.kind == EventKind.TAKEN:
            assert e.count is not None
            self.counts[seat] += e.count
            self.held[seat] |= self._table()
        else:
            self.gone |= self._table()
        self.attacks, self.defences = [], []
        self.taking = self.first = False

    def _draw(self, e: Event, seat: int, chose: bool) -> None:
        count = e.count
        assert count is not None
        self.counts[seat] += count
        self.drawn[seat] += count
        self.stock -= count

    def _out(self, e: Event, seat: int, chose: bool) -> None:
        self.active.discard(seat)

    def slip(self, seat: int, unlike: float) -> float:
        """How often `seat`'s moves say the wrong thing about his hand: `slip` if he plays like
        `normal`, 1 if his moves say nothing, weighed by the chance of each (`unlike` before his
        plays showed anything)."""
        slip = self.normal_slip
        ratio = unlike * math.exp(min(self.odds[seat], 500.0))
        return slip + (1 - slip) * ratio / (ratio + 1 - unlike)

    # ---- the public state -------------------------------------------------------------

    def _round_limit(self) -> int:
        limit = self.rules.max_attack
        return min(limit, self.rules.first_round_limit) if self.first else limit

    def _open(self, defender: int) -> None:
        self.limit = min(self._round_limit(), self.counts[defender])

    def _put(self, seat: int, card: int) -> None:
        self.attacks.append(card)
        self.defences.append(-1)
        self.counts[seat] -= 1

    def _next(self, seat: int) -> int:
        n = len(self.counts)
        for step in range(1, n + 1):
            s = (seat + step) % n
            if s in self.active:
                return s
        return seat

    def _note(self, seat: int, excluded: int, doubt: float = 0.0) -> None:
        excluded &= ~self.held[seat]
        if not excluded:
            return
        self.found.append((seat, excluded, self.drawn[seat], doubt))
        if not doubt:
            maybe = self.deck & ~self.gone & ~self._table() & ~sum(
                h for s, h in enumerate(self.held) if s != seat)
            self.said[seat].append((excluded, self.drawn[seat],
                                    (excluded & maybe).bit_count() / max(1, maybe.bit_count())))

    def _played(self, seat: int, card: int) -> None:
        """He played (or showed) `card`: unless it was known to be his, it was his at each of
        his earlier moves, unless he drew it since."""
        if self.held[seat] >> card & 1:
            self.held[seat] &= ~(1 << card)
            return
        hand = max(1, self.counts[seat])
        slip = self.normal_slip
        kept = []
        for item in self.said[seat]:
            excluded, drawn_then, share = item
            was_his = _still_his(self.drawn[seat] - drawn_then, hand)
            if was_his <= 0:
                continue   # his hand then is all drawn away: nothing to check it against
            kept.append(item)
            # The chance that the move excluded this card: a move that says nothing, `share`;
            # one like `normal`'s, that only if he drew the card since, or else slipped.
            like = max(1e-12, share * (1 - was_his + was_his * slip / (1 - share * (1 - slip))))
            if excluded >> card & 1:
                self.odds[seat] += math.log(share / like)
            elif share < 1:
                self.odds[seat] += math.log((1 - share) / (1 - like))
        self.said[seat] = kept

    def _table(self) -> int:
        return sum(1 << c for c in (*self.attacks, *self.defences) if c >= 0)

    def _ranks(self) -> int:
        ranks = 0
        for c in (*self.attacks, *self.defences):
            if c >= 0:
                ranks |= RANK_CARDS[c]
        return ranks

    # ---- what a move says, as cards it makes unlikely ---------------------------------

    def _throwable(self) -> int:
        """Cards of the table's ranks that `normal` would throw in now."""
        ranks = self._ranks()
        if self.stock <= NORMAL.throw_all_stock:
            return ranks
        top = NORMAL.throw_to_taker if self.taking else NORMAL.throw_to_defender
        if self.stock <= NORMAL.late_stock:
            top += NORMAL.late_throw_extra
        low = sum(RANK_CARDS[r] for r in range(top + 1)) & ~SUIT_CARDS[self.trump]
        return ranks & low

    def _attack_says(self, card: int) -> int:
        trumps = SUIT_CARDS[self.trump]
        worth = value(card, self.trump)
        if self.attacks:   # a throw-in: the cheapest it would throw
            return self._throwable() & self.below[worth]
        if self.stock <= NORMAL.late_stock:
            return self._late_lead_says(card, worth)
        lower = self.below[self._bonus_floor(card, worth, NORMAL.pair_bonus)]
        if trumps >> card & 1:
            return (~trumps | lower) & ((1 << 52) - 1)
        return lower & ~trumps

    def _lead_unless_pair(self, seat: int, card: int) -> tuple[int, float]:
        """An early lead over a plain card one rank cheaper says he had no such card unless he
        held a pair of the lead's rank (worth leading): those cards, and the chance of a pair."""
        mates = self._unplayed(card) - 1
        if not mates or SUIT_CARDS[self.trump] >> card & 1:
            return 0, 0.0
        worth = value(card, self.trump)
        cheaper = self.below[worth] & ~self.below[max(0, worth - 1)] & ~SUIT_CARDS[self.trump]
        return cheaper, _fewer_than(1, mates, self._share(seat))

    def _pass_says(self) -> int:
        if len(self.attacks) >= self.limit:
            return 0
        return self._throwable()

    def _defence_says(self, seat: int, card: int, target: int) -> list[tuple[int, float]]:
        """A cheaper beater would have been played instead, if its rank is on the table or if
        opening its rank cost less than the difference; that cost falls with each card of the
        rank he holds, so for a new rank it says: no such beater, unless he held enough of its
        rank. (cards, the chance that they are not excluded) for each rank."""
        if not 0 <= target < len(self.attacks):
            return []
        beaters = self.beaters[self.attacks[target]]
        worth = value(card, self.trump)
        ranks = self._ranks()
        out = [(beaters & self.below[worth] & ranks, 0.0)]
        p = self._share(seat)
        rest = beaters & self.below[worth] & ~ranks
        while rest:
            rank = RANK_CARDS[(rest & -rest).bit_length() - 1]
            rest &= ~rank
            others = max(0, self._unplayed(rank.bit_length() - 1) - 1)
            # A beater worth `gap` less is played once the unseen cards of its rank cost less
            # than `gap`: when he holds more than others - gap / cost of them.
            for gap in range(1, worth + 1):
                need = math.floor(others - gap / NORMAL.new_rank_cost) + 1
                if need > others:
                    continue
                cards = beaters & rank & self.below[worth - gap + 1] & ~self.below[worth - gap]
                if cards:
                    out.append((cards, _fewer_than(need, others, p)))
        return out

    def _share(self, seat: int) -> float:
        """The chance that a card he could not see was his: his hand's share of the hidden
        cards."""
        return self.counts[seat] / (sum(self.counts) + self.stock)

    def _late_lead_says(self, card: int, worth: int) -> int:
        """A lead once the stock is low, from the whole hand: a card cheaper than the lead by
        more than every bonus the lead may have had (a pair, the defender unable to beat it)."""
        pair = NORMAL.endgame_pair_bonus if not self.stock else NORMAL.pair_bonus
        return self.below[self._bonus_floor(card, worth, pair, NORMAL.sure_bonus)]

    def _bonus_floor(self, card: int, worth: int, pair: float, sure: float = 0.0) -> int:
        """The value under which a card would have been led instead of `card`, whatever bonus
        it had: a pair's if a card of its rank may have been his too (three of a rank are rare
        enough to be left to the slip), and `sure`."""
        mates = min(1, self._unplayed(card) - 1)
        return max(0, math.ceil(worth - pair * mates - sure))

    def _unplayed(self, card: int) -> int:
        """Cards of `card`'s rank neither on the table nor discarded."""
        return (RANK_CARDS[card] & ~self.gone & ~self._table()).bit_count()

    def _take_says(self) -> int:
        """Taking with one card unbeaten: with the stock empty he cannot beat it; else no
        beater cheap enough that defending would cost less than taking (policy._should_take)."""
        unbeaten = [a for a, d in zip(self.attacks, self.defences, strict=True) if d < 0]
        if len(unbeaten) != 1:
            return 0
        attack = unbeaten[0]
        if not self.stock:
            return self.beaters[attack]
        mean = MEAN[self.rules.deck]
        table = [c for c in (*self.attacks, *self.defences) if c >= 0]
        gained = sum(value(c, self.trump) - mean for c in table)
        burden = NORMAL.card_burden + max(0, 6 - self.stock) * NORMAL.burden_growth
        top = mean + len(table) * burden + NORMAL.tempo - gained - _NEW_RANK_MOST
        if top < 0:
            return 0
        return self.beaters[attack] & self.below[min(26, int(top) + 1)]

    def _no_transfer_says(self, seat: int) -> int:
        """In the transfer game, with a transfer open (R9), `normal` transfers with a plain
        card of the rank whenever it holds one."""
        if self.rules.variant != Variant.TRANSFER or not self.attacks or any(
                d >= 0 for d in self.defences):
            return 0
        rank = RANK_CARDS[self.attacks[0]]
        if any(not rank >> a & 1 for a in self.attacks):
            return 0
        receiver, k = self._next(seat), len(self.attacks)
        if receiver == seat or self.counts[receiver] < k + 1 or k + 1 > self._round_limit():
            return 0
        return rank & ~SUIT_CARDS[self.trump]


def _still_his(drawn_since: int, hand: int) -> float:
    """The chance that a card of his `hand` cards was already his `drawn_since` draws ago."""
    return 1 - min(drawn_since, hand) / hand


def _fewer_than(need: int, cards: int, p: float) -> float:
    """The chance that fewer than `need` of `cards` cards are his, each with chance `p`."""
    return sum(math.comb(cards, k) * p ** k * (1 - p) ** (cards - k) for k in range(need))


def _dealt(view: PlayerView) -> tuple[list[int], int]:
    """Each seat's hand size and the stock's at the deal: today's, less what the history added,
    plus what it took away."""
    counts, stock = list(view.hand_counts), view.stock_count
    for e in view.history:
        seat = e.seat
        if e.kind in (EventKind.ATTACK, EventKind.DEFEND, EventKind.TRANSFER):
            assert seat is not None   # a play names its seat
            counts[seat] += 1
        elif e.kind in (EventKind.TAKEN, EventKind.DRAW):
            count = e.count
            assert seat is not None and count is not None   # a take or a draw names both
            counts[seat] -= count
            if e.kind == EventKind.DRAW:
                stock += count
    return counts, stock
