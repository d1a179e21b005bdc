"""The rules of engine/ written plainly: lists of Card objects, no bitmasks, no shortcuts.

A yardstick for engine/: bench/engine_bench.py plays the same random games on both and prints
how many times faster engine/ is, and tests/engine/test_plain_engine.py plays random games on
both side by side, so this module stays a faithful second reading of docs/rules.md (R1-R10, the
time-outs and windows exactly as engine/ does them). It offers what the benchmark drivers use:
new, legal_actions, apply, advance, next_deadline, is_over, active_seats, and the public state
the test compares. Illegal moves are not checked: callers pick from legal_actions.
"""

from __future__ import annotations

import random

from engine.actions import Action, Event
from engine.cards import CARDS, DECK_LOWEST_RANK, SUITS, Card
from engine.rules import Rules

HAND_SIZE = 6


def _deck_order(card: Card) -> int:
    """Hands are kept in deck order (♠ ♣ ♦ ♥, low to high), so moves are listed in it."""
    return card.index


class PlainGame:
    def __init__(self, rules: Rules, hands: list[list[Card]], stock: list[Card], trump: str,
                 now: float = 0.0) -> None:
        self.rules = rules
        self.players = rules.players
        self.hands = [sorted(h, key=_deck_order) for h in hands]  # kept in deck order
        self.stock = list(stock)  # stock[0] is drawn next, stock[-1] is the face-up card
        self.trump = trump
        self.trump_card = stock[-1] if stock else None
        self.discard: list[Card] = []
        self.pairs: list[list] = []  # [attack card, the card that beat it or None]
        self.out: list[int] = []
        self.passes: set[int] = set()
        self.shown: set[int] = set()
        self.taking = False
        self.first_round = True
        self.is_over = False
        self.durak: int | None = None
        self.timeouts = [0] * self.players
        self.turn_due: float | None = None
        self.window_due: float | None = None
        self.close_due: float | None = None
        self.start_round(self.first_attacker(), now)

    @classmethod
    def new(cls, rules: Rules, seed: int | str, now: float = 0.0) -> PlainGame:
        """The deal engine.Game.new makes from the same seed (R2)."""
        deck = [c for c in CARDS if c.rank >= DECK_LOWEST_RANK[rules.deck]]
        random.Random(seed).shuffle(deck)
        hands = [deck[i * HAND_SIZE:(i + 1) * HAND_SIZE] for i in range(rules.players)]
        stock = deck[rules.players * HAND_SIZE:]
        trump = stock[-1].suit if stock else hands[-1][-1].suit  # R2.3
        return cls(rules, hands, stock, trump, now)

    # ---- seats --------------------------------------------------------------------------

    @property
    def active_seats(self) -> list[int]:
        return [s for s in range(self.players) if s not in self.out]

    def next_active(self, seat: int) -> int:
        for step in range(1, self.players + 1):
            s = (seat + step) % self.players
            if s not in self.out:
                return s
        return seat

    def previous_active(self, seat: int) -> int:
        for step in range(1, self.players + 1):
            s = (seat - step) % self.players
            if s not in self.out:
                return s
        return seat

    def throwers(self) -> list[int]:
        """R5.2: everyone active but the defender; with the option, his two neighbours."""
        active = self.active_seats
        if self.rules.throw_in == "all" or len(active) <= 3:
            return [s for s in active if s != self.defender]
        near = {self.previous_active(self.defender), self.next_active(self.defender)}
        return [s for s in active if s in near and s != self.defender]

    def first_attacker(self) -> int:
        """R3.1 lowest trump, R3.2 else the lowest card, ties by suit order."""
        best = None
        for seat, hand in enumerate(self.hands):
            for c in hand:
                key = (c.suit != self.trump, c.rank, SUITS.index(c.suit))
                if best is None or key < best[0]:
                    best = (key, seat)
        return best[1]

    # ---- the table ----------------------------------------------------------------------

    @property
    def table(self) -> list[tuple[Card, Card | None]]:
        return [(a, d) for a, d in self.pairs]

    def ranks_on_table(self) -> set[int]:
        return {c.rank for pair in self.pairs for c in pair if c is not None}

    def unbeaten(self) -> list[int]:
        return [i for i, (_, d) in enumerate(self.pairs) if d is None]

    def beats(self, card: Card, attack: Card) -> bool:
        """R4.1, R4.2."""
        if card.suit == attack.suit:
            return card.rank > attack.rank
        return card.suit == self.trump

    def limit(self) -> int:
        """R5.3, R9.4."""
        return min(self.round_limit, self.round_hand)

    def hand(self, seat: int) -> list[Card]:
        return sorted(self.hands[seat], key=lambda c: (c.suit == self.trump, SUITS.index(c.suit),
                                                       c.rank))

    @property
    def stock_count(self) -> int:
        return len(self.stock)

    @property
    def discard_count(self) -> int:
        return len(self.discard)

    @property
    def passed(self) -> frozenset[int]:
        return frozenset(self.passes)

    @property
    def finished_order(self) -> list[int]:
        return list(self.out)

    @property
    def phase(self) -> str:
        if self.is_over:
            return "over"
        if not self.pairs:
            return "lead"
        return "defend" if self.unbeaten() and not self.taking else "window"

    @property
    def next_deadline(self) -> float | None:
        if self.is_over:
            return None
        if self.turn_due is not None:
            return self.turn_due
        candidates = [t for t in (self.close_due, self.window_due) if t is not None]
        return min(candidates) if candidates else None

    # ---- legal actions ------------------------------------------------------------------

    def legal_actions(self, seat: int) -> list[Action]:
        if self.is_over or seat in self.out:
            return []
        hand = self.hands[seat]
        if not self.pairs:
            return [Action("attack", c) for c in hand] if seat == self.attacker else []
        if seat == self.defender:
            return self.defender_actions(seat, hand)
        if seat not in self.throwers():
            return []
        out = []
        if len(self.pairs) < self.limit():
            ranks = self.ranks_on_table()
            out = [Action("attack", c) for c in hand if c.rank in ranks]
        if seat not in self.passes:
            out.append(Action("pass"))
        return out

    def defender_actions(self, seat: int, hand: list[Card]) -> list[Action]:
        unbeaten = self.unbeaten()
        if self.taking or not unbeaten:
            return []
        out = [Action("defend", c, t) for t in unbeaten for c in hand
               if self.beats(c, self.pairs[t][0])]
        out.append(Action("take"))
        if self.rules.variant != "transfer" or len(unbeaten) != len(self.pairs):
            return out
        ranks = self.ranks_on_table()
        receiver = self.next_active(seat)
        if len(ranks) != 1 or receiver == seat:
            return out
        k, room = len(self.pairs), len(self.hands[receiver])
        same_rank = [c for c in hand if c.rank in ranks]
        if k + 1 <= self.round_limit and room >= k + 1:  # R9.2
            out += [Action("transfer", c) for c in same_rank]
        if self.rules.show_trump and seat not in self.shown and room >= k:  # R9.7
            out += [Action("show_trump", c) for c in same_rank if c.suit == self.trump]
        return out

    # ---- moves --------------------------------------------------------------------------

    def apply(self, seat: int, action: Action, now: float, auto: bool = False) -> list[Event]:
        kind, card = action.kind, action.card
        if kind == "attack":
            events = self.put_attack(seat, card, now)
        elif kind == "defend":
            events = self.defend(seat, card, action.target, now)
        elif kind in ("transfer", "show_trump"):
            events = self.transfer(seat, card, kind == "show_trump", now)
        elif kind == "take":
            events = self.declare_take(now)
        else:
            self.passes.add(seat)
            if self.window_due is not None:
                self.check_window(now)
            events = [Event("pass", seat)]
        self.end_if_decided(events)
        if not auto:
            self.timeouts[seat] = 0
        return events

    def put_attack(self, seat: int, card: Card, now: float) -> list[Event]:
        lead = not self.pairs
        reopens = not self.unbeaten() and not self.taking
        if card.rank not in self.ranks_on_table():
            self.passes.clear()  # R6.3
        self.hands[seat].remove(card)
        self.pairs.append([card, None])
        events = [Event("attack", seat, card)]
        self.leave_if_empty(seat, events)
        if lead or reopens:
            self.turn_due = now + self.rules.turn_seconds
            self.window_due = self.close_due = None
        elif self.taking:
            self.window_due = now + self.rules.throw_in_seconds
            self.close_due = None
            self.check_window(now)
        return events

    def defend(self, seat: int, card: Card, target: int, now: float) -> list[Event]:
        if card.rank not in self.ranks_on_table():
            self.passes.clear()
        self.hands[seat].remove(card)
        self.pairs[target][1] = card
        events = [Event("defend", seat, card, target)]
        self.leave_if_empty(seat, events)
        if self.unbeaten():
            self.turn_due = now + self.rules.turn_seconds
        else:
            self.open_window(now)
        return events

    def declare_take(self, now: float) -> list[Event]:
        self.taking = True
        self.passes.clear()
        self.open_window(now)
        return [Event("take", self.defender)]

    def transfer(self, seat: int, card: Card, show: bool, now: float) -> list[Event]:
        receiver = self.next_active(seat)
        if show:
            self.shown.add(seat)
        else:
            self.hands[seat].remove(card)
            self.pairs.append([card, None])
        events = [Event("show_trump" if show else "transfer", seat, card, to_seat=receiver)]
        self.attacker, self.defender = seat, receiver  # R9.1
        self.round_hand = len(self.hands[receiver])  # R9.4
        self.passes.clear()
        self.turn_due = now + self.rules.turn_seconds
        self.leave_if_empty(seat, events)
        return events

    def leave_if_empty(self, seat: int, events: list[Event]) -> None:
        """R8.1."""
        if not self.stock and not self.hands[seat] and seat not in self.out:
            self.out.append(seat)
            events.append(Event("out", seat))

    # ---- windows, rounds, the end -------------------------------------------------------

    def open_window(self, now: float) -> None:
        self.turn_due = None
        self.window_due = now + self.rules.throw_in_seconds
        self.close_due = None
        self.check_window(now)

    def check_window(self, now: float) -> None:
        """R6.3: the close grace starts once nobody who may throw in is left."""
        ranks = self.ranks_on_table()
        room = len(self.pairs) < self.limit()
        someone = room and any(s not in self.passes and any(c.rank in ranks for c in self.hands[s])
                               for s in self.throwers())
        if someone:
            self.close_due = None
        elif self.close_due is None:
            self.close_due = now + self.rules.close_grace_seconds

    def start_round(self, attacker: int, now: float) -> None:
        self.round_starter = self.attacker = attacker
        self.defender = self.next_active(attacker)
        self.round_limit = self.rules.max_attack
        if self.first_round:
            self.round_limit = min(self.round_limit, self.rules.first_round_limit)
        self.round_hand = len(self.hands[self.defender])
        self.turn_due = now + self.rules.turn_seconds
        self.window_due = self.close_due = None

    def close_round(self, now: float) -> list[Event]:
        d, taken = self.defender, self.taking
        cards = [c for pair in self.pairs for c in pair if c is not None]
        if taken:
            self.hands[d] = sorted(self.hands[d] + cards, key=_deck_order)
        else:
            self.discard += cards
        events = [Event("taken" if taken else "beaten", d, count=len(cards))]
        self.pairs, self.passes, self.taking = [], set(), False
        self.turn_due = self.window_due = self.close_due = None
        active = self.active_seats
        order = [s for s in ((self.round_starter + i) % self.players for i in range(self.players))
                 if s in active and s != d] + ([d] if d in active else [])
        for seat in order:  # R7.1, R9.6
            need = HAND_SIZE - len(self.hands[seat])
            if need > 0 and self.stock:
                drawn, self.stock = self.stock[:need], self.stock[need:]
                self.hands[seat] = sorted(self.hands[seat] + drawn, key=_deck_order)
                if self.trump_card in drawn:
                    self.trump_card = None
                events.append(Event("draw", seat, count=len(drawn)))
        for seat in order:
            self.leave_if_empty(seat, events)
        self.first_round = False
        if len(self.active_seats) <= 1:
            self.finish(d, events)
            return events
        keeps_lead = not taken and d not in self.out  # R6.5, R8.4
        self.start_round(d if keeps_lead else self.next_active(d), now)
        events.append(Event("round", self.attacker, to_seat=self.defender))
        return events

    def end_if_decided(self, events: list[Event]) -> None:
        """R8.5: one player (or none) left with cards and no draw possible: the end, now."""
        active = self.active_seats
        if self.stock or self.is_over or len(active) > 1:
            return
        if active and active[0] == self.defender and not self.taking and not self.rules.no_draws:
            unbeaten = [self.pairs[t][0] for t in self.unbeaten()]
            if len(unbeaten) == len(self.hands[self.defender]) and self.can_beat_all(
                    self.hands[self.defender], unbeaten):
                return
        self.finish(self.defender, events)

    def can_beat_all(self, hand: list[Card], attacks: list[Card]) -> bool:
        if not attacks:
            return True
        return any(self.beats(c, attacks[0]) and self.can_beat_all(
            [x for x in hand if x is not c], attacks[1:]) for c in hand)

    def finish(self, last_defender: int, events: list[Event]) -> None:
        """R8.2, R8.3."""
        self.is_over = True
        active = self.active_seats
        if active:
            self.durak = active[0]
        elif self.rules.no_draws:
            self.durak = last_defender
            self.out.remove(last_defender)
        self.turn_due = self.window_due = self.close_due = None
        events.append(Event("over", self.durak))

    # ---- time ---------------------------------------------------------------------------

    def advance(self, now: float) -> list[Event]:
        events: list[Event] = []
        while self.next_deadline is not None and self.next_deadline <= now:
            events += self.fire(self.next_deadline)
        return events

    def fire(self, due: float) -> list[Event]:
        if self.turn_due is None:
            return self.close_round(due)
        if not self.pairs:  # R10.2: the lowest card, plain before trump, ties by suit order
            seat = self.attacker
            hand = self.hands[seat]
            pool = [c for c in hand if c.suit != self.trump] or hand
            card = min(pool, key=lambda c: (c.rank, SUITS.index(c.suit)))
            self.timeouts[seat] += 1
            events = [Event("timeout", seat), *self.put_attack(seat, card, due)]
        else:
            self.timeouts[self.defender] += 1
            events = [Event("timeout", self.defender), *self.declare_take(due)]
        self.end_if_decided(events)
        return events
