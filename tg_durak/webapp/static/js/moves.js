// What the player may do, read from the state's `legal` list: the page never judges the rules.
import { UP } from './protocol.js';

// Each kind of move the page may send, as the server names it (play/taps.py's APP_MOVES;
// tests/webapp/test_page_protocol.py holds the two alike). `card`, `target`: the fields its frame
// carries (a card from the hand, an attack card's index). `drop`: a card dropped on the table,
// off the attack cards, makes it (the first such kind the card allows). `button`, `look`: its
// button's text key and class, for a kind that has a button. A new kind of move is one more row.
export const MOVE_KINDS = Object.freeze({
  attack: { card: true, target: false, drop: true },
  defend: { card: true, target: true },
  transfer: { card: true, target: false, drop: true, button: 'app.transfer' },
  show_trump: { card: true, target: false, button: 'app.show_trump' },
  take: { card: false, target: false, button: 'app.take', look: 'warn' },
  pass: { card: false, target: false, button: 'app.pass', look: 'primary' },
});

// The kinds that have a button, in the order the buttons stand.
export const BUTTON_KINDS = Object.keys(MOVE_KINDS).filter((kind) => MOVE_KINDS[kind].button);

function legal(state) {
  return state?.legal ?? [];
}

// A move laid on an attack card (a defence), not on the table.
export function onAttackCard(move) {
  return Boolean(MOVE_KINDS[move.move]?.target);
}

export function movesWithCard(state, card) {
  return legal(state).filter((m) => m.card === card);
}

export function playableCards(state) {
  return new Set(legal(state).filter((m) => m.card).map((m) => m.card));
}

export function hasMove(state, kind) {
  return legal(state).some((m) => m.move === kind);
}

export function cardsFor(state, kind) {
  return legal(state).filter((m) => m.move === kind).map((m) => m.card);
}

// The attack cards this card may be laid on.
export function defenceTargets(state, card) {
  return movesWithCard(state, card).filter(onAttackCard).map((m) => m.target);
}

export function findMove(state, wanted) {
  return legal(state).find((m) => m.move === wanted.move
    && (wanted.card === undefined || m.card === wanted.card)
    && (wanted.target === undefined || m.target === wanted.target)) ?? null;
}

// The move of this card laid on the attack card at `target`, if it may be.
export function moveOnto(state, card, target) {
  return movesWithCard(state, card).find((m) => onAttackCard(m) && m.target === target) ?? null;
}

// A card dropped on the table without a target: the first kind a drop makes (a lead or throw-in,
// else a transfer), else the one move on an attack card it allows.
export function dropOnTable(state, card) {
  const moves = movesWithCard(state, card);
  for (const [kind, spec] of Object.entries(MOVE_KINDS)) {
    const move = spec.drop && moves.find((m) => m.move === kind);
    if (move) return move;
  }
  const onto = moves.filter(onAttackCard);
  return onto.length === 1 ? onto[0] : null;
}

// What a card means when no legal move has it, read as the chat reads a tap on its card button
// (play/taps.py's PlayCard): the defender lays it on the first unbeaten card, anyone else leads
// or throws it in. Sent all the same, it is refused, and the refusal says why: the page shows
// the server's reason rather than judging the move itself.
export function meantMove(state, card) {
  const me = state.seats.find((s) => s.seat === state.me);
  const open = state.pairs.findIndex((p) => !p.defence);
  if (me?.role === 'defending' && open >= 0) return { move: 'defend', card, target: open };
  return { move: 'attack', card };
}

// The frame that sends a move, with the fields its kind carries.
export function moveFrame(state, move) {
  const spec = MOVE_KINDS[move.move];
  const frame = { type: UP.MOVE, version: state.version, move: move.move };
  if (spec.card) frame.card = move.card;
  if (spec.target) frame.target = move.target;
  return frame;
}
