"""The game: one state object, its legal actions, its transitions and its deadlines (R1–R10).

Cards are ints 0..51 and hands are bitmasks, so legal_actions/apply/copy stay cheap enough for
computer players that simulate thousands of games per decision. Every public answer is in
`Card`s; the ints never leave this module and `views.py`.
"""

from __future__ import annotations

import random

from engine.actions import (
    ATTACK,
    DEFEND,
    PASS,
    SHOW_TRUMP,
    TAKE,
    TRANSFER,
    Action,
    Event,
    IllegalMove,
)
from engine.cards import (
    CARDS,
    DECK_LOWEST_RANK,
    RANK_CARDS,
    SUIT_CARDS,
    SUITS,
    Card,
    beats_masks,
    cards_of,
    deck_mask,
    mask_of,
    parse_suit,
)
from engine.rules import Rules
from engine.views import PlayerView, next_due

FORMAT = 1
HAND_SIZE = 6
_BEATS = tuple(beats_masks(s) for s in range(4))
_event = tuple.__new__  # Event(...) without NamedTuple's Python-level __new__


def _lowest(mask: int, trump: int) -> int:
    """R10.2's forced lead: lowest non-trump, else lowest trump; ties by suit order (R3.2)."""
    plain = mask & ~SUIT_CARDS[trump]
    pool = cards_of(plain or mask)
    return min(pool, key=lambda c: (c.rank, c.suit_index)).index


def _card(i: int) -> str | None:
    return None if i < 0 else str(CARDS[i])


def _parse_initial(ini: dict) -> tuple:
    """The deal recorded by to_dict, back as (hands, stock, trump, first, now, revealed)."""
    return (
        tuple(tuple(Card.parse(c) for c in h) for h in ini["hands"]),
        tuple(Card.parse(c) for c in ini["stock"]),
        ini["trump"], ini["first_attacker"], ini["now"],
        None if ini.get("revealed") is None else Card.parse(ini["revealed"]),
    )


def _strs(mask: int) -> list[str]:
    return [str(c) for c in cards_of(mask)]


class Game:
    __slots__ = (
        "_durak", "active", "atk", "attacker", "beats", "close_due", "defender", "dfn", "discard",
        "first_round", "hands", "initial", "known", "limit", "log", "n", "nexts", "out", "over",
        "pmask", "prevs",
        "round_max", "rules", "seed", "shown", "stock", "taking", "throwers", "timeouts", "tmask",
        "trump", "trump_card_i", "turn_due", "unbeaten", "window_due",
    )

    # ---- construction -------------------------------------------------------------------

    @classmethod
    def new(cls, rules: Rules, seed: int | str, now: float = 0.0) -> Game:
        """Shuffle with `seed` and deal (R2); the lowest trump leads (R3)."""
        deck = [c for c in CARDS if c.rank >= DECK_LOWEST_RANK[rules.deck]]
        random.Random(seed).shuffle(deck)
        n = rules.players
        hands = [deck[i * HAND_SIZE:(i + 1) * HAND_SIZE] for i in range(n)]
        stock = deck[n * HAND_SIZE:]
        # R2.3: with no stock left the last dealt card names trump and is shown to all.
        revealed = None if stock else hands[-1][-1]
        trump = stock[-1].suit if stock else revealed.suit
        return cls._setup(rules, seed, hands, stock, trump, None, now, revealed)

    @classmethod
    def from_deal(
        cls,
        rules: Rules,
        hands: list[list[Card | str]],
        stock: list[Card | str],
        trump: str | None = None,
        first_attacker: int | None = None,
        now: float = 0.0,
        seed: int | str = 0,
    ) -> Game:
        """An explicit deal: stock[0] is drawn next, stock[-1] is the face-up trump card."""
        hands = [[Card.parse(c) for c in h] for h in hands]
        stock = [Card.parse(c) for c in stock]
        if len(hands) != rules.players:
            raise ValueError(f"{len(hands)} hands for a {rules.players}-player table")
        every = [c for h in hands for c in h] + stock
        if len(set(every)) != len(every):
            raise ValueError("a card is dealt twice")
        allowed = deck_mask(rules.deck)
        if any(not allowed >> c.index & 1 for c in every):
            raise ValueError(f"a card outside the {rules.deck}-card deck is dealt")
        if not all(hands):
            raise ValueError("every seat needs at least one card")
        if stock:
            if trump is not None and parse_suit(trump) != stock[-1].suit_index:
                raise ValueError("trump must be the suit of the last stock card (R2.2)")
            trump = stock[-1].suit
        elif trump is None:
            raise ValueError("with an empty stock, name the trump suit")
        if first_attacker is not None and first_attacker not in range(rules.players):
            raise ValueError("first_attacker is not a seat")
        return cls._setup(rules, seed, hands, stock, SUITS[parse_suit(trump)], first_attacker, now)

    @classmethod
    def _setup(cls, rules, seed, hands, stock, trump, first_attacker, now, revealed=None) -> Game:
        g = object.__new__(cls)
        n = rules.players
        g.rules, g.seed, g.n = rules, seed, n
        g.trump = parse_suit(trump)
        g.beats = _BEATS[g.trump]
        g.hands = [sum(1 << c.index for c in h) for h in hands]
        g.stock = [c.index for c in reversed(stock)]  # drawn with pop(): the next card is last
        g.trump_card_i = g.stock[0] if g.stock else -1
        g.discard = 0
        g.atk, g.dfn = [], []
        g.unbeaten = g.tmask = g.pmask = g.shown = 0
        g.taking = g.over = False
        g._durak = None
        g.known = [0] * n
        g.active = (1 << n) - 1
        g.out = []
        g.timeouts = [0] * n
        g.first_round = True
        g.log = []
        g.defender = 0
        g._update_seating()
        # The deal as dealt; spelled out as JSON only when someone asks for it (to_dict).
        g.initial = (tuple(map(tuple, hands)), tuple(stock), SUITS[g.trump], first_attacker,
                     now, revealed)
        if revealed is not None:
            g.known[n - 1] |= 1 << revealed.index  # R2.3: the trump-deciding card is shown
        if first_attacker is None:
            first_attacker, deciding = g._first_attacker()
            if deciding is not None:
                g.known[first_attacker] |= 1 << deciding.index  # R3.1: all see the card
        g._start_round(first_attacker, now)
        return g

    def _first_attacker(self) -> tuple[int, Card | None]:
        """R3.1 lowest trump; R3.2 without trumps, the lowest card, ties by suit order."""
        best = None
        for seat, hand in enumerate(self.hands):
            trumps = hand & SUIT_CARDS[self.trump]
            pool = cards_of(trumps) if trumps else cards_of(hand)
            for c in pool:
                key = (0 if trumps else 1, c.rank, c.suit_index)
                if best is None or key < best[0]:
                    best = (key, seat, c)
        return best[1], best[2]

    # ---- public queries -----------------------------------------------------------------

    @property
    def next_deadline(self) -> float | None:
        return next_due(self.over, self.turn_due, self.window_due, self.close_due)

    @property
    def table(self) -> list[tuple[Card, Card | None]]:
        pairs = zip(self.atk, self.dfn, strict=True)
        return [(CARDS[a], CARDS[d] if d >= 0 else None) for a, d in pairs]

    def hand(self, seat: int) -> list[Card]:
        return sorted(cards_of(self.hands[seat]), key=self._sort_key)

    def _sort_key(self, c: Card) -> tuple[int, int, int]:
        return (c.suit_index == self.trump, c.suit_index, c.rank)

    @property
    def stock_count(self) -> int:
        return len(self.stock)

    @property
    def discard_count(self) -> int:
        return self.discard.bit_count()

    @property
    def trump_suit(self) -> str:
        return SUITS[self.trump]

    @property
    def trump_card(self) -> Card | None:
        return CARDS[self.trump_card_i] if self.trump_card_i >= 0 else None

    @property
    def active_seats(self) -> list[int]:
        return [s for s in range(self.n) if self.active >> s & 1]

    @property
    def is_over(self) -> bool:
        return self.over

    @property
    def durak(self) -> int | None:
        return self._durak

    @property
    def finished_order(self) -> list[int]:
        return list(self.out)

    @property
    def attack_limit(self) -> int:
        return self.limit

    @property
    def away(self) -> frozenset[int]:
        return frozenset(s for s, t in enumerate(self.timeouts) if t >= 2)

    @property
    def passed(self) -> frozenset[int]:
        """Seats whose pass currently stands (R5.4)."""
        return frozenset(s for s in range(self.n) if self.pmask >> s & 1)

    @property
    def version(self) -> int:
        return len(self.log)

    @property
    def phase(self) -> str:
        """Derived, never stored: "lead", "defend", "window" or "over"."""
        if self.over:
            return "over"
        if not self.atk:
            return "lead"
        return "defend" if self.unbeaten and not self.taking else "window"

    def reaction_delay(self, seat: int) -> float:
        """R10.3: a computer player's delay, drawn from the table's seed, so a game replays."""
        low, high = self.rules.bot_delay
        return random.Random(f"{self.seed}/{len(self.log)}/{seat}").uniform(low, high)

    def view(self, seat: int) -> PlayerView:
        return PlayerView.of(self, seat)

    # ---- legal actions ------------------------------------------------------------------

    @property
    def acting_seats(self) -> list[int]:
        """The seats that have at least one legal action now (cheaper than asking each)."""
        if self.over:
            return []
        if not self.atk:
            return [self.attacker]
        m = 0
        if self.unbeaten and not self.taking:
            m = 1 << self.defender
        throwers = self.throwers
        m |= throwers & ~self.pmask
        if len(self.atk) < self.limit:
            tm, hands = self.tmask, self.hands
            rest = throwers & self.pmask
            while rest:
                low = rest & -rest
                if hands[low.bit_length() - 1] & tm:
                    m |= low
                rest ^= low
        out = []
        while m:
            low = m & -m
            out.append(low.bit_length() - 1)
            m ^= low
        return out

    def legal_actions(self, seat: int) -> list[Action]:
        if self.over or seat.__class__ is not int or seat < 0 or not self.active >> seat & 1:
            return []
        atk = self.atk
        hands = self.hands
        if not atk:
            if seat != self.attacker:
                return []
            out = []
            m = hands[seat]
            while m:
                low = m & -m
                out.append(ATTACK[low.bit_length() - 1])
                m ^= low
            return out
        if seat == self.defender:
            if self.taking or not self.unbeaten:
                return []
            hand = hands[seat]
            beats = self.beats
            dfn = self.dfn
            out = []
            for t, a in enumerate(atk):
                if dfn[t] < 0:
                    m = hand & beats[a]
                    while m:
                        low = m & -m
                        out.append(DEFEND[low.bit_length() - 1][t])
                        m ^= low
            out.append(TAKE)
            if self.rules.variant == "transfer" and self.unbeaten == len(atk):
                self._transfers(seat, out)
            return out
        if not self.throwers >> seat & 1:
            return []
        out = []
        if len(atk) < self.limit:
            m = hands[seat] & self.tmask
            while m:
                low = m & -m
                out.append(ATTACK[low.bit_length() - 1])
                m ^= low
        if not self.pmask >> seat & 1:
            out.append(PASS)
        return out

    def _transfers(self, seat: int, out: list[Action]) -> None:
        tm = self.tmask
        if tm != RANK_CARDS[self.atk[0]]:
            return
        nxt = self.nexts[seat]
        if nxt == seat:
            return
        k = len(self.atk)
        room = self.hands[nxt].bit_count()
        hand = self.hands[seat]
        if k < self.round_max and room > k:
            m = hand & tm
            while m:
                low = m & -m
                out.append(TRANSFER[low.bit_length() - 1])
                m ^= low
        if self.rules.show_trump and not self.shown >> seat & 1 and room >= k:
            m = hand & tm & SUIT_CARDS[self.trump]
            while m:
                low = m & -m
                out.append(SHOW_TRUMP[low.bit_length() - 1])
                m ^= low

    # ---- applying actions ---------------------------------------------------------------

    def apply(self, seat: int, action: Action, now: float, auto: bool = False) -> list[Event]:
        """Apply one move; an illegal one raises IllegalMove and changes nothing.

        `auto` marks a move a computer made for an away player, so it does not count as the
        player acting again (R10.2).
        """
        if self.over:
            raise IllegalMove("game_over", "The game is over.")
        if seat.__class__ is not int or seat < 0 or not self.active >> seat & 1:
            if not isinstance(seat, int) or not 0 <= seat < self.n:
                raise IllegalMove("no_seat", "You have no seat at this table.")
            raise IllegalMove("out", "You have left the game: you hold no cards.")
        if action.__class__ is not Action:
            try:
                action = Action(*action)
            except TypeError:
                raise IllegalMove("bad_action", "That is not a move.") from None
        kind, card, target = action
        handler = _HANDLERS.get(kind) if kind.__class__ is str else None
        if handler is None or not (card is None or card.__class__ is Card) or (
            target is not None and kind != "defend"
        ):
            raise IllegalMove("bad_action", "That is not a move.")
        events = handler(self, seat, card, target, now)
        self.log.append(("act", seat, kind, card, target, now, auto))
        if not auto:
            self.timeouts[seat] = 0
        return events

    def _check_card(self, seat: int, card: Card | None) -> int:
        if card is None:
            raise IllegalMove("bad_action", "That is not a move.")
        bit = 1 << card.index
        if not self.hands[seat] & bit:
            raise IllegalMove("not_in_hand", f"{card} is not in your hand.")
        return bit

    def _attack(self, seat, card, target, now) -> list[Event]:
        bit = self._check_card(seat, card)
        if not self.atk:
            if seat != self.attacker:
                raise IllegalMove("not_your_lead", "It is not your turn to lead.")
        else:
            if seat == self.defender:
                raise IllegalMove("defending", "You are defending: beat the cards or take.")
            if not self.throwers >> seat & 1:
                raise IllegalMove("not_thrower", "Only the defender's neighbours may throw in.")
            if len(self.atk) >= self.limit:
                raise IllegalMove("limit", f"No more cards this round: the limit is {self.limit}.")
            if not self.tmask & bit:
                raise IllegalMove("rank_not_on_table", "Throw in only ranks already on the table.")
        return self._put_attack(seat, card.index, now)

    def _put_attack(self, seat: int, ci: int, now: float) -> list[Event]:
        bit = 1 << ci
        lead = not self.atk
        reopens = self.unbeaten == 0 and not self.taking
        self.hands[seat] ^= bit
        self.known[seat] &= ~bit
        self.atk.append(ci)
        self.dfn.append(-1)
        self.unbeaten += 1
        if not self.tmask & bit:
            self.tmask |= RANK_CARDS[ci]
            self.pmask = 0  # R6.3: a new rank cancels passes
        events = [_event(Event, ("attack", seat, CARDS[ci], None))]
        if not self.stock and not self.hands[seat]:
            self._maybe_leave(seat, events)
        if lead or reopens:
            # R10.2: new unbeaten cards reach the defender; a closed window is interrupted.
            self.turn_due = now + self.rules.turn_seconds
            self.window_due = self.close_due = None
        elif self.taking:
            self.window_due = now + self.rules.throw_in_seconds  # R6.3: renews the window
            self.close_due = None
            self._check_window(now)
        return events

    def _defend(self, seat, card, target, now) -> list[Event]:
        if seat != self.defender:
            raise IllegalMove("not_defender", "You are not defending.")
        if self.taking:
            raise IllegalMove("taking", "You have decided to take the cards.")
        if not isinstance(target, int) or isinstance(target, bool) or not (
            0 <= target < len(self.atk)
        ):
            raise IllegalMove("bad_target", "Choose an attack card on the table.")
        if self.dfn[target] >= 0:
            raise IllegalMove("already_beaten", "That card is already beaten.")
        bit = self._check_card(seat, card)
        attack = self.atk[target]
        if not self.beats[attack] & bit:
            raise IllegalMove("does_not_beat", f"{card} does not beat {CARDS[attack]}.")
        self.hands[seat] ^= bit
        self.known[seat] &= ~bit
        self.dfn[target] = card.index
        self.unbeaten -= 1
        if not self.tmask & bit:
            self.tmask |= RANK_CARDS[card.index]
            self.pmask = 0
        events = [_event(Event, ("defend", seat, card, target))]
        if not self.stock and not self.hands[seat]:
            self._maybe_leave(seat, events)
        if self.unbeaten:
            self.turn_due = now + self.rules.turn_seconds
        else:
            self._open_window(now)
        return events

    def _take(self, seat, card, target, now) -> list[Event]:
        if card is not None:
            raise IllegalMove("bad_action", "That is not a move.")
        if seat != self.defender:
            raise IllegalMove("not_defender", "You are not defending.")
        if self.taking:
            raise IllegalMove("taking", "You have decided to take the cards.")
        if not self.unbeaten:
            raise IllegalMove("all_beaten", "Every card is beaten.")
        return self._declare_take(now)

    def _declare_take(self, now: float) -> list[Event]:
        self.taking = True
        self.pmask = 0  # R6.3: a take cancels passes
        self._open_window(now)
        return [Event("take", self.defender)]

    def _pass(self, seat, card, target, now) -> list[Event]:
        if card is not None:
            raise IllegalMove("bad_action", "That is not a move.")
        if not self.atk:
            raise IllegalMove("empty_table", "Nothing is on the table yet.")
        if seat == self.defender:
            raise IllegalMove("defending", "You are defending: beat the cards or take.")
        if not self.throwers >> seat & 1:
            raise IllegalMove("not_thrower", "Only the defender's neighbours may throw in.")
        if self.pmask >> seat & 1:
            raise IllegalMove("already_passed", "You have already passed.")
        self.pmask |= 1 << seat
        if self.window_due is not None:
            self._check_window(now)
        return [_event(Event, ("pass", seat, None, None))]

    def _transfer(self, seat, card, target, now, show: bool = False) -> list[Event]:
        rules = self.rules
        if rules.variant != "transfer":
            raise IllegalMove("no_transfer", "This table plays the throw-in game: no transfers.")
        if show and not rules.show_trump:
            raise IllegalMove("no_show_trump", "Showing a trump to transfer is off at this table.")
        if seat != self.defender:
            raise IllegalMove("not_defender", "You are not defending.")
        if self.taking:
            raise IllegalMove("taking", "You have decided to take the cards.")
        k = len(self.atk)
        if not k:
            raise IllegalMove("empty_table", "Nothing is on the table yet.")
        if self.unbeaten != k:
            raise IllegalMove("started_beating", "You have started beating: defend or take.")
        bit = self._check_card(seat, card)
        if self.tmask != RANK_CARDS[self.atk[0]]:
            raise IllegalMove("mixed_ranks", "The attack cards must all share one rank.")
        if not self.tmask & bit:
            raise IllegalMove("wrong_rank", "Transfer with a card of the attack's rank.")
        nxt = self.nexts[seat]
        if nxt == seat:
            raise IllegalMove("no_one_next", "There is nobody to transfer to.")
        if show:
            if card.suit_index != self.trump:
                raise IllegalMove("not_trump", "Show a trump of the attack's rank.")
            if self.shown >> seat & 1:
                raise IllegalMove("shown_before", "You have already shown a trump this game.")
            need = k
        else:
            if k + 1 > self.round_max:
                raise IllegalMove("transfer_limit", f"At most {self.round_max} attack cards.")
            need = k + 1
        if self.hands[nxt].bit_count() < need:
            raise IllegalMove("transfer_hand", "The next player holds too few cards.")
        if show:
            self.shown |= 1 << seat
            self.known[seat] |= bit
            events = [Event("show_trump", seat, card, nxt)]
        else:
            self.hands[seat] ^= bit
            self.known[seat] &= ~bit
            self.atk.append(card.index)
            self.dfn.append(-1)
            self.unbeaten += 1
            events = [Event("transfer", seat, card, nxt)]
        self.defender = nxt
        self.limit = min(self.round_max, self.hands[nxt].bit_count())  # R9.4
        self.pmask = 0
        self.turn_due = now + rules.turn_seconds
        self._update_throwers()
        self._maybe_leave(seat, events)
        return events

    def _show_trump(self, seat, card, target, now) -> list[Event]:
        return self._transfer(seat, card, target, now, show=True)

    # ---- windows, leaving, rounds -------------------------------------------------------

    def _open_window(self, now: float) -> None:
        self.turn_due = None
        self.window_due = now + self.rules.throw_in_seconds
        self.close_due = None
        self._check_window(now)

    def _check_window(self, now: float) -> None:
        """R6.3: once everyone who may throw in is done, the round closes after the grace."""
        if self._throwers_done():
            if self.close_due is None:
                self.close_due = now + self.rules.close_grace_seconds
        else:
            self.close_due = None

    def _throwers_done(self) -> bool:
        if len(self.atk) >= self.limit:
            return True
        m = self.throwers & ~self.pmask
        tm = self.tmask
        hands = self.hands
        while m:
            low = m & -m
            if hands[low.bit_length() - 1] & tm:
                return False
            m ^= low
        return True

    def _update_seating(self) -> None:
        """Recompute who sits next to whom among active players, and who may throw in."""
        n, active = self.n, self.active
        seats = [s for s in range(n) if active >> s & 1] or list(range(n))
        nexts, prevs = [0] * n, [0] * n
        for seat in range(n):
            nexts[seat] = next((s for s in seats if s > seat), seats[0])
            prevs[seat] = next((s for s in reversed(seats) if s < seat), seats[-1])
        self.nexts, self.prevs = nexts, prevs
        self._update_throwers()

    def _update_throwers(self) -> None:
        d = self.defender
        if self.rules.throw_in == "all" or self.active.bit_count() <= 3:
            self.throwers = self.active & ~(1 << d)
        else:
            self.throwers = (1 << self.prevs[d]) | (1 << self.nexts[d])
            self.throwers &= ~(1 << d)

    def _maybe_leave(self, seat: int, events: list[Event]) -> None:
        """R8.1: with the stock empty, a player without cards is safe and leaves at once."""
        if not self.stock and not self.hands[seat] and self.active >> seat & 1:
            self.active &= ~(1 << seat)
            self.out.append(seat)
            self._update_seating()
            events.append(Event("out", seat))

    def _start_round(self, attacker: int, now: float) -> None:
        self.attacker = attacker
        self.defender = self.nexts[attacker]
        self.round_max = self.rules.max_attack
        if self.first_round:
            self.round_max = min(self.round_max, self.rules.first_round_limit)
        self.limit = min(self.round_max, self.hands[self.defender].bit_count())
        self.turn_due = now + self.rules.turn_seconds
        self.window_due = self.close_due = None
        self._update_throwers()

    def _close_round(self, now: float) -> list[Event]:
        d = self.defender
        taken = self.taking
        table = 0
        for c in self.atk:
            table |= 1 << c
        for c in self.dfn:
            if c >= 0:
                table |= 1 << c
        if taken:
            self.hands[d] |= table
            self.known[d] |= table  # R11.1: everyone saw what he took
        else:
            self.discard |= table  # R6.4
        events = [Event("taken" if taken else "beaten", d, None, table.bit_count())]
        self.atk, self.dfn = [], []
        self.unbeaten = self.tmask = self.pmask = 0
        self.taking = False
        self.turn_due = self.window_due = self.close_due = None
        # R7.1 / R9.6: the round's first attacker, the others clockwise, the defender last.
        n, active, hands, stock = self.n, self.active, self.hands, self.stock
        order = []
        s = self.attacker
        for _ in range(n):
            if s != d and active >> s & 1:
                order.append(s)
            s = s + 1 if s + 1 < n else 0
        if active >> d & 1:
            order.append(d)
        if stock:
            trump_i = self.trump_card_i
            for seat in order:
                need = HAND_SIZE - hands[seat].bit_count()
                if need <= 0:
                    continue
                drawn = stock[-need:]
                del stock[-need:]
                for ci in drawn:
                    hands[seat] |= 1 << ci
                if trump_i >= 0 and trump_i in drawn:
                    self.known[seat] |= 1 << trump_i  # all saw who drew the face-up trump
                    self.trump_card_i = trump_i = -1
                events.append(_event(Event, ("draw", seat, None, len(drawn))))
                if not stock:
                    break
        if not stock:
            for seat in order:
                self._maybe_leave(seat, events)
        self.first_round = False
        if self.active.bit_count() <= 1:
            self._finish(d, events)
            return events
        # R6.5: after a defence the defender leads, after a take the next one does; R8.4.
        keeps_lead = not taken and self.active >> d & 1
        self._start_round(d if keeps_lead else self.nexts[d], now)
        events.append(_event(Event, ("round", self.attacker, None, self.defender)))
        return events

    def _finish(self, last_defender: int, events: list[Event]) -> None:
        """R8.2 / R8.3: the last one holding cards is the durak; nobody left is a draw."""
        self.over = True
        if self.active:
            self._durak = self.active.bit_length() - 1
        elif self.rules.no_draws:
            self._durak = last_defender
            self.out.remove(last_defender)
        else:
            self._durak = None
        self.turn_due = self.window_due = self.close_due = None
        events.append(Event("over", self._durak))

    # ---- time ---------------------------------------------------------------------------

    def advance(self, now: float) -> list[Event]:
        """Fire every deadline due by `now`, each at its own due time (R10.5)."""
        events: list[Event] = []
        while True:
            due = self.next_deadline
            if due is None or due > now:
                return events
            events += self._fire(due)

    def _fire(self, due: float) -> list[Event]:
        self.log.append(("tick", due))
        if self.turn_due is not None:
            if not self.atk:
                seat = self.attacker
                self.timeouts[seat] += 1
                lead = _lowest(self.hands[seat], self.trump)
                return [Event("timeout", seat), *self._put_attack(seat, lead, due)]
            seat = self.defender
            self.timeouts[seat] += 1
            return [Event("timeout", seat), *self._declare_take(due)]
        return self._close_round(due)

    def postpone(self, seconds: float) -> None:
        """Move every running deadline later (R10.4: downtime is nobody's lost turn)."""
        if self.over or seconds <= 0:
            return
        self.log.append(("postpone", seconds))
        self._shift(seconds)

    def _shift(self, seconds: float) -> None:
        if self.turn_due is not None:
            self.turn_due += seconds
        if self.window_due is not None:
            self.window_due += seconds
        if self.close_due is not None:
            self.close_due += seconds

    # ---- copying and serialisation ------------------------------------------------------

    def copy(self, with_log: bool = True) -> Game:
        """An independent game; search copies without the log (it never replays)."""
        g = object.__new__(Game)
        g.rules, g.seed, g.n = self.rules, self.seed, self.n
        g.trump, g.beats = self.trump, self.beats
        g.trump_card_i, g.discard, g.unbeaten = self.trump_card_i, self.discard, self.unbeaten
        g.tmask, g.pmask, g.shown, g.active = self.tmask, self.pmask, self.shown, self.active
        g.taking, g.over, g._durak = self.taking, self.over, self._durak
        g.attacker, g.defender, g.limit = self.attacker, self.defender, self.limit
        g.round_max, g.first_round, g.throwers = self.round_max, self.first_round, self.throwers
        g.turn_due, g.window_due, g.close_due = self.turn_due, self.window_due, self.close_due
        # Seating lists and the initial deal are replaced, never mutated: safe to share.
        g.nexts, g.prevs, g.initial = self.nexts, self.prevs, self.initial
        g.hands = self.hands[:]
        g.stock = self.stock[:]
        g.atk = self.atk[:]
        g.dfn = self.dfn[:]
        g.known = self.known[:]
        g.out = self.out[:]
        g.timeouts = self.timeouts[:]
        g.log = self.log[:] if with_log else []
        return g

    def to_dict(self, log: bool = True) -> dict:
        """JSON-safe snapshot; `log=False` leaves out the log (a store keeps it row by row)."""
        d = {
            "format": FORMAT,
            "rules": self.rules.to_dict(),
            "seed": self.seed,
            "initial": self._initial_json(),
            "state": {
                "hands": [_strs(h) for h in self.hands],
                "stock": [str(CARDS[c]) for c in reversed(self.stock)],
                "trump": SUITS[self.trump],
                "trump_card": _card(self.trump_card_i),
                "discard": _strs(self.discard),
                "table": [[_card(a), _card(d)] for a, d in zip(self.atk, self.dfn, strict=True)],
                "attacker": self.attacker,
                "defender": self.defender,
                "limit": self.limit,
                "round_max": self.round_max,
                "first_round": self.first_round,
                "taking": self.taking,
                "passed": self.pmask,
                "shown": self.shown,
                "active": self.active,
                "out": list(self.out),
                "over": self.over,
                "durak": self._durak,
                "turn_due": self.turn_due,
                "window_due": self.window_due,
                "close_due": self.close_due,
                "timeouts": list(self.timeouts),
                "known": [_strs(k) for k in self.known],
            },
        }
        if log:
            d["log"] = [self.entry_to_json(e) for e in self.log]
        return d

    def _initial_json(self) -> dict | None:
        if self.initial is None:
            return None  # a determinization made for search has no deal of its own
        hands, stock, trump, first_attacker, now, revealed = self.initial
        return {
            "hands": [[str(c) for c in h] for h in hands],
            "stock": [str(c) for c in stock],
            "trump": trump,
            "first_attacker": first_attacker,
            "now": now,
            "revealed": None if revealed is None else str(revealed),
        }

    @staticmethod
    def entry_to_json(e: tuple) -> list:
        """One log entry as JSON-safe data (what the store appends per action)."""
        if e[0] == "act":
            _, seat, kind, card, target, now, auto = e
            return ["act", seat, kind, None if card is None else str(card), target, now, auto]
        return list(e)

    @classmethod
    def from_dict(cls, d: dict) -> Game:
        """Restore a snapshot; a damaged one raises ValueError rather than yield a wrong game."""
        try:
            if d.get("format") != FORMAT:
                raise ValueError(f"unknown snapshot format {d.get('format')!r}")
            rules = Rules.from_dict(d["rules"])
            s = d["state"]
            g = object.__new__(cls)
            g.rules, g.seed, g.n = rules, d["seed"], rules.players
            g.initial = _parse_initial(d["initial"])
            g.trump = parse_suit(s["trump"])
            g.beats = _BEATS[g.trump]
            g.hands = [mask_of(h) for h in s["hands"]]
            g.stock = [Card.parse(c).index for c in reversed(s["stock"])]
            g.trump_card_i = -1 if s["trump_card"] is None else Card.parse(s["trump_card"]).index
            g.discard = mask_of(s["discard"])
            g.atk = [Card.parse(a).index for a, _ in s["table"]]
            g.dfn = [-1 if b is None else Card.parse(b).index for _, b in s["table"]]
            g.unbeaten = g.dfn.count(-1)
            g.tmask = 0
            for c in g.atk + g.dfn:
                if c >= 0:
                    g.tmask |= RANK_CARDS[c]
            for name, slot in (("attacker", "attacker"), ("defender", "defender"),
                               ("limit", "limit"), ("round_max", "round_max"),
                               ("passed", "pmask"), ("shown", "shown"), ("active", "active")):
                value = s[name]
                if not isinstance(value, int) or value < 0:
                    raise ValueError(f"bad {name}")
                setattr(g, slot, value)
            g.first_round, g.taking, g.over = bool(s["first_round"]), bool(s["taking"]), bool(
                s["over"])
            g.out = [int(x) for x in s["out"]]
            g._durak = s["durak"]
            g.turn_due, g.window_due, g.close_due = s["turn_due"], s["window_due"], s["close_due"]
            g.timeouts = [int(x) for x in s["timeouts"]]
            g.known = [mask_of(k) for k in s["known"]]
            g.log = [cls._entry_from_json(e) for e in d["log"]]
        except (KeyError, TypeError, AttributeError, IndexError) as exc:
            raise ValueError(f"damaged game snapshot: {exc!r}") from exc
        g._validate()
        g._update_seating()
        return g

    @staticmethod
    def _entry_from_json(e: list) -> tuple:
        if e[0] == "act":
            _, seat, kind, card, target, now, auto = e
            return ("act", seat, kind, None if card is None else Card.parse(card), target, now,
                    bool(auto))
        if e[0] in ("tick", "postpone") and len(e) == 2:
            return (e[0], float(e[1]))
        raise ValueError(f"unknown log entry {e!r}")

    def _validate(self) -> None:
        n = self.n
        if len(self.hands) != n or len(self.known) != n or len(self.timeouts) != n:
            raise ValueError("damaged game snapshot: seat count")
        zones = [*self.hands, self.discard, *(1 << c for c in self.stock),
                 *(1 << c for c in self.atk + self.dfn if c >= 0)]
        seen = 0
        for z in zones:
            if seen & z:
                raise ValueError("damaged game snapshot: a card is in two places")
            seen |= z
        if seen & ~deck_mask(self.rules.deck) or not (
            0 <= self.attacker < n and 0 <= self.defender < n
        ):
            raise ValueError("damaged game snapshot: cards or seats out of range")

    @classmethod
    def replay(cls, d: dict) -> Game:
        """Rebuild a game from its initial deal and log: the audit trail of a table."""
        g = cls._setup(Rules.from_dict(d["rules"]), d["seed"], *_parse_initial(d["initial"]))
        for e in d["log"]:
            g.replay_entry(cls._entry_from_json(e) if isinstance(e, list) else e)
        return g

    def replay_entry(self, e: tuple) -> None:
        """Re-apply one log entry exactly as it happened."""
        if e[0] == "act":
            _, seat, kind, card, target, now, auto = e
            self.apply(seat, Action(kind, card, target), now, auto)
        elif e[0] == "tick":
            if self.next_deadline != e[1]:
                raise ValueError(f"log disagrees: deadline {self.next_deadline} vs {e[1]}")
            self._fire(e[1])
        else:
            self.postpone(e[1])


_HANDLERS = {
    "attack": Game._attack,
    "defend": Game._defend,
    "transfer": Game._transfer,
    "show_trump": Game._show_trump,
    "take": Game._take,
    "pass": Game._pass,
}
