"""The game: one state object, its legal actions, its transitions and its deadlines (R1–R10).

Cards are ints 0..51 and hands are bitmasks (`engine/state.py` declares every field), so
legal_actions/apply/copy stay cheap enough for computer players that simulate thousands of games
per decision. Every public answer is in `Card`s.

Each rule of who may do what is written once: `_lead_refusal`, `_thrower_seats`,
`_answer_refusal`, `_transfers` (the reason a move is refused, or the seats it is open to) and,
where cards matter, a card mask of what the rule allows (`table_ranks`, `beaters`,
`_transfers`): `legal_actions` and `acting_seats` list what they allow, `apply` raises what they
refuse, with its reason (PokerKit's verify / can / do).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

import engine.snapshot as snapshot
from engine.actions import (
    ATTACK,
    DEFEND,
    PASS,
    SHOW_TRUMP,
    TAKE,
    TRANSFER,
    Action,
    ActionKind,
    Event,
    EventKind,
    IllegalMove,
    Refusal,
    TransferVerdict,
    attack_actions,
)
from engine.cards import (
    CARDS,
    RANK_CARDS,
    SUIT_CARDS,
    SUITS,
    Card,
    beats_masks,
    bits_of,
    cards_of,
    mask_of,
    parse_suit,
    picked,
)
from engine.deal import explicit_deal, opening_attacker, shuffled_deal
from engine.rules import AWAY_AFTER_TIMEOUTS, HAND_SIZE, MAX_PLAYERS, Rules, ThrowIn, Variant
from engine.state import DERIVED, FIELDS, SLOTS, GameFields, Phase, compile_copy, next_due
from engine.views import PlayerView

BEATERS = tuple(beats_masks(s) for s in range(4))  # BEATERS[trump][card]
# _event(Event, (kind, seat, card, target, to_seat, count)) is Event(...) without the
# NamedTuple's Python-level __new__: every move makes one.
_event = tuple.__new__
_TRANSFER_GAME, _THROW_IN_ALL = Variant.TRANSFER, ThrowIn.ALL   # hot-path enums (~50 ns a read)
_NO_SHOW_TRUMP: TransferVerdict = Refusal.NO_SHOW_TRUMP, 0   # _transfers' ready answers
_NO_TRANSFER = (Refusal.NO_TRANSFER, 0), (Refusal.NO_TRANSFER, 0)
# _DEFEND_AT[target][card]: the interned DEFEND actions, by target first, so that one
# `picked` lists a target's answers.
_DEFEND_AT = tuple(zip(*DEFEND, strict=True))
# Each seat mask's seats in order, listed once: acting_seats asks at every step of a search.
_SEATS_OF = tuple(tuple(bits_of(mask)) for mask in range(1 << MAX_PLAYERS))
# What Game.from_fields must be given: every field but the derived ones.
_GIVEN = frozenset(f.name for f in FIELDS if f.kind is not DERIVED)


def _lowest(mask: int, trump: int) -> int:
    """R10.2's forced lead: lowest non-trump, else lowest trump; ties by suit order (R3.2)."""
    plain = mask & ~SUIT_CARDS[trump]
    pool = cards_of(plain or mask)
    return min(pool, key=lambda c: (c.rank, c.suit_index)).index


class Game(GameFields):
    __slots__ = SLOTS

    # ---- construction -------------------------------------------------------------------

    @classmethod
    def new(cls, rules: Rules, seed: int | str, now: float = 0.0) -> Game:
        """Shuffle with `seed` and deal (R2); the lowest trump leads (R3)."""
        hands, stock, trump, revealed = shuffled_deal(rules, seed)
        return cls._setup(rules, seed, hands, stock, trump, None, now, revealed)

    @classmethod
    def from_deal(
        cls,
        rules: Rules,
        hands: Sequence[Sequence[Card | str]],
        stock: Sequence[Card | str],
        trump: str | None = None,
        first_attacker: int | None = None,
        now: float = 0.0,
        seed: int | str = 0,
    ) -> Game:
        """An explicit deal: stock[0] is drawn next, stock[-1] is the face-up trump card."""
        dealt, cards, suit = explicit_deal(rules, hands, stock, trump, first_attacker)
        return cls._setup(rules, seed, dealt, cards, suit, first_attacker, now)

    @classmethod
    def _setup(cls, rules: Rules, seed: int | str, hands: Sequence[Sequence[Card]],
               stock: Sequence[Card], trump: str, first_attacker: int | None, now: float,
               revealed: Card | None = None) -> Game:
        g = object.__new__(cls)
        n = rules.players
        g.rules, g.seed, g.players, g.log, g.history = rules, seed, n, [], []
        # The deal as dealt; spelled out as JSON only when someone asks for it (to_dict).
        g.initial = (tuple(map(tuple, hands)), tuple(stock), trump, first_attacker, now, revealed)
        g.trump = parse_suit(trump)
        g.hands = [mask_of(h) for h in hands]
        g.known = [0] * n
        g.stock = [c.index for c in reversed(stock)]  # drawn with pop(): the next card is last
        g.trump_card_index = g.stock[0] if g.stock else -1
        g.named_trump = _named_trump(stock, revealed)
        g.discard = 0
        g.attacks, g.defences = [], []
        g.active = (1 << n) - 1
        g.out_order = []
        g.first_round, g.taking, g.passes, g.showed_trump = True, False, 0, 0
        g.timeouts = [0] * n
        g.is_over, g.durak = False, None
        g.defender = 0  # until the first round starts; _derive needs one
        g._derive()
        if revealed is not None:
            g.known[n - 1] |= 1 << revealed.index  # R2.3: the trump-deciding card is shown
        if first_attacker is None:
            first_attacker, deciding = opening_attacker(g.hands, g.trump)
            if deciding is not None:
                g.known[first_attacker] |= 1 << deciding.index  # R3.1: all see the card
        g._start_round(first_attacker, now)
        return g

    @classmethod
    def from_fields(cls, **fields: Any) -> Game:
        """A game from every field of state.FIELDS but the derived ones, which it computes
        (a deal consistent with a view, engine/sampling.py)."""
        if fields.keys() != _GIVEN:
            raise TypeError(f"fields missing or unknown: {sorted(fields.keys() ^ _GIVEN)}")
        g = object.__new__(cls)
        for name, value in fields.items():
            setattr(g, name, value)
        g._derive()
        return g

    def _derive(self) -> None:
        """Recompute the derived fields (state.DERIVED) from the saved ones."""
        self.beaters = BEATERS[self.trump]
        self.unbeaten = self.defences.count(-1)
        ranks = 0
        for c in self.attacks + self.defences:
            if c >= 0:
                ranks |= RANK_CARDS[c]
        self.table_ranks = ranks
        self._update_seating()

    # ---- public queries -----------------------------------------------------------------

    @property
    def next_deadline(self) -> float | None:
        return next_due(self.is_over, self.turn_due, self.window_due, self.close_due)

    @property
    def table(self) -> list[tuple[Card, Card | None]]:
        pairs = zip(self.attacks, self.defences, strict=True)
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
        return CARDS[self.trump_card_index] if self.trump_card_index >= 0 else None

    @property
    def active_seats(self) -> list[int]:
        return list(self.active_list)

    @property
    def finished_order(self) -> list[int]:
        return list(self.out_order)

    @property
    def away(self) -> frozenset[int]:
        """Seats a computer plays for after consecutive time-outs (R10.2)."""
        return frozenset(s for s, t in enumerate(self.timeouts) if t >= AWAY_AFTER_TIMEOUTS)

    @property
    def passed(self) -> frozenset[int]:
        """Seats whose pass currently stands (R5.4)."""
        return frozenset(_SEATS_OF[self.passes])

    @property
    def version(self) -> int:
        return len(self.log)

    @property
    def phase(self) -> Phase:
        if self.is_over:
            return Phase.OVER
        if not self.attacks:
            return Phase.LEAD
        return Phase.DEFEND if self.unbeaten and not self.taking else Phase.WINDOW

    def reaction_delay(self, seat: int) -> float:
        """R10.3: a computer player's delay, drawn from the table's seed, so a game replays."""
        low, high = self.rules.bot_delay
        return random.Random(f"{self.seed}/{len(self.log)}/{seat}").uniform(low, high)

    def view(self, seat: int) -> PlayerView:
        """What `seat` may see (R11)."""
        return PlayerView(
            seat=seat,
            rules=self.rules,
            hand=tuple(self.hand(seat)),
            table=tuple(self.table),
            trump_suit=self.trump_suit,
            trump_card=self.trump_card,
            named_trump=CARDS[self.named_trump] if self.named_trump >= 0 else None,
            stock_count=len(self.stock),
            discard_count=self.discard.bit_count(),
            hand_counts=tuple(h.bit_count() for h in self.hands),
            known=tuple(tuple(cards_of(k)) for k in self.known),
            discarded=tuple(cards_of(self.discard)),
            phase=self.phase,
            round_starter=self.round_starter,
            attacker=self.attacker,
            defender=self.defender,
            active_seats=self.active_list,
            finished_order=tuple(self.out_order),
            throwers=_SEATS_OF[self.throwers],
            taking=self.taking,
            passed=self.passed,
            attack_limit=self.attack_limit,
            round_limit=self.round_limit,
            first_round=self.first_round,
            shown_trump=frozenset(_SEATS_OF[self.showed_trump]),
            away=self.away,
            turn_due=self.turn_due,
            window_due=self.window_due,
            close_due=self.close_due,
            is_over=self.is_over,
            durak=self.durak,
            history=tuple(self.history),
        )

    # ---- who may do what (each rule once) -----------------------------------------------

    def _lead_refusal(self, seat: int) -> str | None:
        """R5.1: the attacker leads."""
        return None if seat == self.attacker else Refusal.NOT_YOUR_LEAD

    def _thrower_seats(self) -> tuple[int, int]:
        """R5.2-R5.4, once the lead is down: the seat masks of who may throw in (a card of a
        rank on the table) and of who may pass (his pass stands until a new rank or a Take
        cancels it, R6.3)."""
        if not self.attacks:
            return 0, 0
        throwers = self.throwers
        return (throwers if len(self.attacks) < self.attack_limit else 0,
                throwers & ~self.passes)

    def _thrower_refusal(self, seat: int, otherwise: str) -> str:
        """Why `seat` is not among `_thrower_seats`: else `otherwise` (the limit, his pass)."""
        if not self.attacks:
            return Refusal.EMPTY_TABLE
        if seat == self.defender:
            return Refusal.DEFENDING
        if not self.throwers >> seat & 1:
            return Refusal.NOT_THROWER
        return otherwise

    def _answer_refusal(self, seat: int) -> str | None:
        """R6.1: the defender answers unbeaten cards (beat, take or transfer), until Take (R6.2)."""
        if seat != self.defender:
            return Refusal.NOT_DEFENDER
        if self.taking:
            return Refusal.TAKING
        if not self.unbeaten:
            return Refusal.ALL_BEATEN if self.attacks else Refusal.EMPTY_TABLE
        return None

    def _transfers(self, seat: int) -> tuple[TransferVerdict, TransferVerdict]:
        """R9.1-R9.5, R9.7, for a defender whose answer is allowed: may he pass the attack on,
        and with which cards, by laying a card and by showing a trump? ((refusal, cards) each;
        the cards are 0 when refused.)"""
        rules = self.rules
        if rules.variant is not _TRANSFER_GAME:
            return _NO_TRANSFER
        k = len(self.attacks)
        refusal = None
        if self.unbeaten != k:
            refusal = Refusal.STARTED_BEATING
        elif self.table_ranks != RANK_CARDS[self.attacks[0]]:
            refusal = Refusal.MIXED_RANKS
        elif self.next_seat[seat] == seat:
            refusal = Refusal.NO_ONE_NEXT
        if refusal is not None:
            return (refusal, 0), (refusal, 0)
        cards = self.hands[seat] & self.table_ranks  # the attack's rank
        # The receiver must answer every attack card: one more card unless one is shown (R9.2).
        room = self.hands[self.next_seat[seat]].bit_count()
        if k + 1 > self.round_limit:
            by_card: TransferVerdict = Refusal.TRANSFER_LIMIT, 0
        else:
            by_card = (Refusal.TRANSFER_HAND, 0) if room < k + 1 else (None, cards)
        shown: TransferVerdict
        if not rules.show_trump:
            shown = _NO_SHOW_TRUMP
        elif self.showed_trump >> seat & 1:
            shown = Refusal.SHOWN_BEFORE, 0
        else:
            trumps = cards & SUIT_CARDS[self.trump]
            shown = (Refusal.TRANSFER_HAND, 0) if room < k else (None, trumps)
        return by_card, shown

    # ---- legal actions ------------------------------------------------------------------

    def legal_actions(self, seat: int) -> list[Action]:
        if self.is_over or seat.__class__ is not int or seat < 0 or not self.active >> seat & 1:
            return []
        if not self.attacks:
            return attack_actions(self.hands[seat]) if self._lead_refusal(seat) is None else []
        if seat == self.defender:  # cheap necessary conditions first: most seats have none
            out: list[Action] = []
            if self.unbeaten and not self.taking:   # _answer_refusal's conditions
                self._add_answers(seat, out)
            return out
        if not self.throwers >> seat & 1:
            return []
        # _thrower_seats for one seat known to be a thrower (R5.2-R5.4, R6.3).
        cards = self.hands[seat] & self.table_ranks
        out = picked(cards, ATTACK) if cards and len(self.attacks) < self.attack_limit else []
        if not self.passes >> seat & 1:
            out.append(PASS)
        return out

    def _add_answers(self, seat: int, out: list[Action]) -> None:
        """The defender's answers (his answer allowed): beat a card, take, or transfer."""
        hand, beaters, defences = self.hands[seat], self.beaters, self.defences
        for target, attack in enumerate(self.attacks):
            if defences[target] < 0 and (cards := hand & beaters[attack]):
                out += picked(cards, _DEFEND_AT[target])
        out.append(TAKE)
        # Cheap necessary conditions first (the transfer game, nothing beaten yet: R9.5); the
        # rule itself, with its reasons, is _transfers.
        if self.rules.variant is _TRANSFER_GAME and self.unbeaten == len(self.attacks):
            (_, cards), (_, trumps) = self._transfers(seat)
            if cards:
                out += picked(cards, TRANSFER)
            if trumps:
                out += picked(trumps, SHOW_TRUMP)

    @property
    def acting_seats(self) -> list[int]:
        """The seats that have at least one legal action now (cheaper than asking each)."""
        if self.is_over:
            return []
        if not self.attacks:
            return [self.attacker]  # only he leads (_lead_refusal)
        may_throw_in, seats = self._thrower_seats()
        if self._answer_refusal(self.defender) is None:
            seats |= 1 << self.defender  # he may Take, at least
        rest = may_throw_in & ~seats
        if rest:
            hands, ranks = self.hands, self.table_ranks
            for s in self.active_list:
                if rest >> s & 1 and hands[s] & ranks:
                    seats |= 1 << s
        return list(_SEATS_OF[seats])

    # ---- applying actions ---------------------------------------------------------------

    def apply(self, seat: int, action: Action, now: float, auto: bool = False) -> list[Event]:
        """Apply one move; an illegal one raises IllegalMove and changes nothing.

        `auto` marks a move a computer made for an away player, so it does not count as the
        player acting again (R10.2).
        """
        if self.is_over:
            raise IllegalMove(Refusal.GAME_OVER)
        if seat.__class__ is not int or seat < 0 or not self.active >> seat & 1:
            if not isinstance(seat, int) or not 0 <= seat < self.players:
                raise IllegalMove(Refusal.NO_SEAT)
            raise IllegalMove(Refusal.OUT)
        if action.__class__ is not Action:
            try:
                action = Action(*action)
            except TypeError:
                raise IllegalMove(Refusal.BAD_ACTION) from None
        kind, card, target = action
        try:
            handler, plays_card, aims = _SHAPES[kind]
        except (KeyError, TypeError):
            raise IllegalMove(Refusal.BAD_ACTION) from None
        # A move names a card exactly when its kind plays one; only "defend" names a target.
        if (card.__class__ is not Card if plays_card else card is not None) or (
            target is not None and not aims
        ):
            raise IllegalMove(Refusal.BAD_ACTION)
        events = handler(self, seat, card, target, now)
        if not self.stock and not self.active & (self.active - 1):  # (R8.5's cheap part)
            self._end_if_decided(events)
        self.log.append(("act", seat, kind, card, target, now, auto))
        self.history += events
        if not auto:
            self.timeouts[seat] = 0
        return events

    def _refuse(self, refusal: str, **details: object) -> IllegalMove:
        return IllegalMove(refusal, attack_limit=self.attack_limit,
                           round_limit=self.round_limit, **details)

    def _card_bit(self, seat: int, card: Card, allowed: int, refusal: str,
                  attack: int = -1) -> int:
        """The card's bit, if it is in the hand and among `allowed` (else `refusal`)."""
        bit = 1 << card.index
        if not self.hands[seat] & bit:
            raise self._refuse(Refusal.NOT_IN_HAND, card=card)
        if not allowed & bit:
            raise self._refuse(refusal, card=card, target=CARDS[attack] if attack >= 0 else None)
        return bit

    def _attack(self, seat: int, card: Card, target: None, now: float) -> list[Event]:
        if self.attacks:
            if not self._thrower_seats()[0] >> seat & 1:
                raise self._refuse(self._thrower_refusal(seat, Refusal.LIMIT))
            allowed = self.table_ranks  # R5.2
        else:
            refusal = self._lead_refusal(seat)
            if refusal is not None:
                raise self._refuse(refusal)
            allowed = self.hands[seat]
        self._card_bit(seat, card, allowed, Refusal.RANK_NOT_ON_TABLE)
        return self._put_attack(seat, card.index, now)

    def _put_attack(self, seat: int, ci: int, now: float) -> list[Event]:
        bit = 1 << ci
        lead = not self.attacks
        reopens = self.unbeaten == 0 and not self.taking
        self.hands[seat] ^= bit
        self.known[seat] &= ~bit
        self.attacks.append(ci)
        self.defences.append(-1)
        self.unbeaten += 1
        if not self.table_ranks & bit:
            self.table_ranks |= RANK_CARDS[ci]
            self.passes = 0  # R6.3: a new rank cancels passes
        events = [_event(Event, (EventKind.ATTACK, seat, CARDS[ci], None, None, None))]
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

    def _defend(self, seat: int, card: Card, target: int | None, now: float) -> list[Event]:
        refusal = self._answer_refusal(seat)
        if refusal is not None:
            raise self._refuse(refusal)
        if target.__class__ is not int or not 0 <= target < len(self.attacks):
            raise self._refuse(Refusal.BAD_TARGET)
        if self.defences[target] >= 0:
            raise self._refuse(Refusal.ALREADY_BEATEN)
        attack = self.attacks[target]
        bit = self._card_bit(seat, card, self.beaters[attack], Refusal.DOES_NOT_BEAT, attack)
        self.hands[seat] ^= bit
        self.known[seat] &= ~bit
        self.defences[target] = card.index
        self.unbeaten -= 1
        if not self.table_ranks & bit:
            self.table_ranks |= RANK_CARDS[card.index]
            self.passes = 0
        events = [_event(Event, (EventKind.DEFEND, seat, card, target, None, None))]
        if not self.stock and not self.hands[seat]:
            self._maybe_leave(seat, events)
        if self.unbeaten:
            self.turn_due = now + self.rules.turn_seconds
        else:
            self._open_window(now)
        return events

    def _take(self, seat: int, card: None, target: None, now: float) -> list[Event]:
        refusal = self._answer_refusal(seat)
        if refusal is not None:
            raise self._refuse(refusal)
        return self._declare_take(now)

    def _declare_take(self, now: float) -> list[Event]:
        self.taking = True
        self.passes = 0  # R6.3: a take cancels passes
        self._open_window(now)
        return [_event(Event, (EventKind.TAKE, self.defender, None, None, None, None))]

    def _pass(self, seat: int, card: None, target: None, now: float) -> list[Event]:
        if not self._thrower_seats()[1] >> seat & 1:
            raise self._refuse(self._thrower_refusal(seat, Refusal.ALREADY_PASSED))
        self.passes |= 1 << seat
        if self.window_due is not None:
            self._check_window(now)
        return [_event(Event, (EventKind.PASS, seat, None, None, None, None))]

    def _transfer(self, seat: int, card: Card, target: None, now: float,
                  show: bool = False) -> list[Event]:
        refusal = self._answer_refusal(seat)
        refusal, allowed = (refusal, 0) if refusal else self._transfers(seat)[show]
        if refusal is not None:
            raise self._refuse(refusal)
        wrong = (Refusal.NOT_TRUMP if show and self.table_ranks >> card.index & 1
                 else Refusal.WRONG_RANK)
        bit = self._card_bit(seat, card, allowed, wrong)
        receiver = self.next_seat[seat]
        if show:
            self.showed_trump |= 1 << seat
            self.known[seat] |= bit
            events = [_event(Event, (EventKind.SHOW_TRUMP, seat, card, None, receiver, None))]
        else:
            self.hands[seat] ^= bit
            self.known[seat] &= ~bit
            self.attacks.append(card.index)
            self.defences.append(-1)
            self.unbeaten += 1
            events = [_event(Event, (EventKind.TRANSFER, seat, card, None, receiver, None))]
        self.attacker, self.defender = seat, receiver  # R9.1: never both at once
        self.attack_limit = min(self.round_limit, self.hands[receiver].bit_count())  # R9.4
        self.passes = 0
        self.turn_due = now + self.rules.turn_seconds
        self._update_throwers()
        self._maybe_leave(seat, events)
        return events

    def _show_trump(self, seat: int, card: Card, target: None, now: float) -> list[Event]:
        return self._transfer(seat, card, target, now, show=True)

    # ---- windows, leaving, rounds -------------------------------------------------------

    def _open_window(self, now: float) -> None:
        self.turn_due = None
        self.window_due = now + self.rules.throw_in_seconds
        self.close_due = None
        self._check_window(now)

    def _check_window(self, now: float) -> None:
        """R6.3: once nobody who may throw in is left (each has passed or holds no card of a
        rank on the table, or the limit is reached), the round closes after the grace."""
        may_throw_in, may_pass = self._thrower_seats()
        willing = may_throw_in & may_pass
        hands, ranks = self.hands, self.table_ranks
        for s in self.active_list:
            if willing >> s & 1 and hands[s] & ranks:
                self.close_due = None
                return
        if self.close_due is None:
            self.close_due = now + self.rules.close_grace_seconds

    def _update_seating(self) -> None:
        """Recompute who sits next to whom among active players, and who may throw in."""
        self.active_list = _SEATS_OF[self.active]
        # With nobody left (a draw) the game is over; any seating keeps next_seat total.
        seats = self.active_list or tuple(range(self.players))
        self.next_seat = [next((s for s in seats if s > seat), seats[0])
                          for seat in range(self.players)]
        self._update_throwers()

    def _update_throwers(self) -> None:
        """R5.2: everyone but the defender, or (option) his neighbours; with 3 that is all."""
        d = self.defender
        if self.rules.throw_in is _THROW_IN_ALL or self.active.bit_count() <= 3:
            self.throwers = self.active & ~(1 << d)
        else:
            seats = self.active_list
            before = next((s for s in reversed(seats) if s < d), seats[-1])
            self.throwers = ((1 << before) | (1 << self.next_seat[d])) & ~(1 << d)

    def _maybe_leave(self, seat: int, events: list[Event]) -> None:
        """R8.1: with the stock empty, a player without cards is safe and leaves at once."""
        if not self.stock and not self.hands[seat] and self.active >> seat & 1:
            self.active &= ~(1 << seat)
            self.out_order.append(seat)
            self._update_seating()
            events.append(Event(EventKind.OUT, seat))

    def _start_round(self, attacker: int, now: float) -> None:
        self.round_starter = self.attacker = attacker
        self.defender = self.next_seat[attacker]
        self.round_limit = self.rules.max_attack
        if self.first_round:
            self.round_limit = min(self.round_limit, self.rules.first_round_limit)
        self.attack_limit = min(self.round_limit, self.hands[self.defender].bit_count())
        self.turn_due = now + self.rules.turn_seconds
        self.window_due = self.close_due = None
        self._update_throwers()

    def _close_round(self, now: float) -> list[Event]:
        """R6.4 / R6.2: the table goes to the discard or the taker; then R7, R8 and R6.5."""
        defender, taken = self.defender, self.taking
        events = [self._clear_table()]
        order = self._drawing_order()
        if self.stock:
            self._draw(order, events)
        if not self.stock:
            for seat in order:
                self._maybe_leave(seat, events)
        self.first_round = False
        if self.active.bit_count() <= 1:
            self._finish(defender, events)
            return events
        # R6.5: after a defence the defender leads, after a take the next one does; R8.4.
        keeps_lead = not taken and self.active >> defender & 1
        self._start_round(defender if keeps_lead else self.next_seat[defender], now)
        events.append(_event(Event, (EventKind.ROUND, self.attacker, None, None, self.defender,
                                     None)))
        return events

    def _clear_table(self) -> Event:
        """The table to the discard (R6.4) or into the taker's hand, seen by all (R11.1)."""
        d = self.defender
        table = 0
        for c in self.attacks:
            table |= 1 << c
        for c in self.defences:
            if c >= 0:
                table |= 1 << c
        if self.taking:
            self.hands[d] |= table
            self.known[d] |= table
        else:
            self.discard |= table
        event = _event(Event, (EventKind.TAKEN if self.taking else EventKind.BEATEN, d, None,
                               None, None, table.bit_count()))
        self.attacks, self.defences = [], []
        self.unbeaten = self.table_ranks = self.passes = 0
        self.taking = False
        self.turn_due = self.window_due = self.close_due = None
        return event

    def _drawing_order(self) -> list[int]:
        """R7.1 / R9.6: the round's first attacker, the others clockwise, the defender last."""
        n, active, d = self.players, self.active, self.defender
        order = []
        s = self.round_starter
        for _ in range(n):
            if s != d and active >> s & 1:
                order.append(s)
            s = s + 1 if s + 1 < n else 0
        if active >> d & 1:
            order.append(d)
        return order

    def _draw(self, order: list[int], events: list[Event]) -> None:
        """R7: up to six cards each, in `order`, while the stock lasts."""
        hands, stock, trump_i = self.hands, self.stock, self.trump_card_index
        for seat in order:
            need = HAND_SIZE - hands[seat].bit_count()
            if need <= 0:
                continue
            drawn = stock[-need:]
            del stock[-need:]
            hand = hands[seat]
            for ci in drawn:
                hand |= 1 << ci
            hands[seat] = hand
            if trump_i >= 0 and trump_i in drawn:
                self.known[seat] |= 1 << trump_i  # all saw who drew the face-up trump
                self.trump_card_index = trump_i = -1
            events.append(_event(Event, (EventKind.DRAW, seat, None, None, None, len(drawn))))
            if not stock:
                return

    def _end_if_decided(self, events: list[Event]) -> None:
        """R8.5: with the stock empty and at most one player holding cards, nothing but a draw
        can change the result; unless the defender can still beat every card with his last
        cards (R8.3), the game ends now, without a window or a clock."""
        active = self.active
        if self.stock or self.is_over or active & (active - 1) or self._draw_possible():
            return
        self._finish(self.defender, events)

    def _draw_possible(self) -> bool:
        """The defender is the one player left with cards, and can beat every unbeaten card
        with exactly the cards he holds (none of that counts with the no-draws option)."""
        d = self.defender
        if self.rules.no_draws or self.taking or self.active != 1 << d:
            return False
        hand = self.hands[d]
        if hand.bit_count() != self.unbeaten:
            return False
        needs = [self.beaters[a] for a, b in zip(self.attacks, self.defences, strict=True)
                 if b < 0]
        return _covers(hand, needs)

    def _finish(self, last_defender: int, events: list[Event]) -> None:
        """R8.2 / R8.3: the last one holding cards is the durak; nobody left is a draw."""
        self.is_over = True
        if self.active:
            self.durak = self.active.bit_length() - 1
        elif self.rules.no_draws:
            self.durak = last_defender
            self.out_order.remove(last_defender)
        else:
            self.durak = None
        self.turn_due = self.window_due = self.close_due = None
        events.append(Event(EventKind.OVER, self.durak))

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
        if self.turn_due is None:
            events = self._close_round(due)
        else:
            # R10.2: a lead that runs out plays the lowest card, a defence that runs out takes.
            seat = self.defender if self.attacks else self.attacker
            self.timeouts[seat] += 1
            events = [_event(Event, (EventKind.TIMEOUT, seat, None, None, None, None))]
            if self.attacks:
                events += self._declare_take(due)
            else:
                events += self._put_attack(seat, _lowest(self.hands[seat], self.trump), due)
            self._end_if_decided(events)
        self.history += events
        return events

    def postpone(self, seconds: float) -> None:
        """Move every running deadline later (R10.4: downtime is nobody's lost turn)."""
        if self.is_over or seconds <= 0:
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

    copy: Callable[..., Game] = compile_copy(
        "An independent game; search copies without the log (it never replays)."
    )

    def to_dict(self, log: bool = True) -> dict:
        """JSON-safe snapshot; `log=False` leaves out the log (a store keeps it row by row)."""
        return snapshot.write_snapshot(self, log)

    @classmethod
    def from_dict(cls, d: dict) -> Game:
        """Restore a snapshot; a damaged one raises ValueError rather than yield a wrong game."""
        g = object.__new__(cls)
        _, stock, _, _, _, revealed = snapshot.read_snapshot(g, d, cls.replay)
        g.named_trump = _named_trump(stock, revealed)
        g._derive()
        return g

    entry_to_json = staticmethod(snapshot.entry_to_json)
    entry_from_json = staticmethod(snapshot.entry_from_json)

    @classmethod
    def replay(cls, d: dict) -> Game:
        """Rebuild a game from its initial deal and log: the audit trail of a table."""
        rules, seed, initial, log = snapshot.read_record(d)
        g = cls._setup(rules, seed, *initial)
        for e in log:
            g.replay_entry(e)
        return g

    def rewound(self, version: int) -> Game:
        """The game as it was at `version`, replayed from its own log."""
        return Game.replay({**self.to_dict(log=False), "log": self.log[:version]})

    def replay_entry(self, e: tuple) -> list[Event]:
        """Re-apply one log entry exactly as it happened; what happened, as it happened."""
        if e[0] == "act":
            _, seat, kind, card, target, now, auto = e
            return self.apply(seat, Action(kind, card, target), now, auto)
        if e[0] == "tick":
            if self.next_deadline != e[1]:
                raise ValueError(f"log disagrees: deadline {self.next_deadline} vs {e[1]}")
            return self._fire(e[1])
        self.postpone(e[1])
        return []

    def opening(self) -> tuple[int, Card] | None:
        """Who attacked first and the card that decided it (R3.1, R3.2; all saw it); None when
        the deal named the first attacker, or for a game with no deal of its own (search's)."""
        if self.initial is None or self.initial[3] is not None:
            return None
        hands, _, trump, *_ = self.initial
        seat, card = opening_attacker([mask_of(h) for h in hands], parse_suit(trump))
        return None if card is None else (seat, card)


def _named_trump(stock: Sequence[Card], revealed: Card | None) -> int:
    """R2.2 / R2.3: the card that named trump, as a card index (-1: none was shown)."""
    card = stock[-1] if stock else revealed
    return -1 if card is None else card.index


def _covers(cards: int, needs: list[int]) -> bool:
    """Whether each mask in `needs` can get a card of its own from `cards` (a matching)."""
    if not needs:
        return True
    return any(_covers(cards ^ (1 << c), needs[1:]) for c in bits_of(cards & needs[0]))


# Each kind of move: its handler, whether it plays a card, whether it names a target.
_SHAPES: dict[str, tuple[Callable[..., list[Event]], bool, bool]] = {
    ActionKind.ATTACK: (Game._attack, True, False),
    ActionKind.DEFEND: (Game._defend, True, True),
    ActionKind.TRANSFER: (Game._transfer, True, False),
    ActionKind.SHOW_TRUMP: (Game._show_trump, True, False),
    ActionKind.TAKE: (Game._take, False, False),
    ActionKind.PASS: (Game._pass, False, False),
}
