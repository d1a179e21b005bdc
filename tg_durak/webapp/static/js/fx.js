// Short movements between two states, found by comparing them: a card played from a hand, cards
// taken, beaten cards to the discard, the deal from the stock. Ghost copies fly over the table in
// their own layer, so a tap is never held up; nothing moves for prefers-reduced-motion.
import { $ } from './dom.js';
import { ID } from './ids.js';

const DURATION = 220;
const EASING = 'cubic-bezier(.2,.8,.25,1)';
const reduced = matchMedia('(prefers-reduced-motion: reduce)');

function rectOf(node) {
  return node ? node.getBoundingClientRect() : null;
}

// Where things are before the new state is drawn; the old table's nodes are kept for ghosts.
export function snapshot() {
  const shot = { hand: new Map(), table: new Map(), seats: new Map(), nodes: new Map() };
  for (const node of $(ID.hand).querySelectorAll('.card[data-card]')) {
    shot.hand.set(node.dataset.card, rectOf(node));
  }
  for (const node of $(ID.pairs).querySelectorAll('.card[data-card]')) {
    shot.table.set(node.dataset.card, rectOf(node));
    shot.nodes.set(node.dataset.card, node);
  }
  for (const node of $(ID.seats).querySelectorAll('.seat')) {
    shot.seats.set(Number(node.dataset.seat), rectOf(node.querySelector('.seat-cards')));
  }
  shot.stock = rectOf($(ID.stock));
  return shot;
}

function fromRect(node, from, delay = 0) {
  const to = node.getBoundingClientRect();
  if (!from || !to.width) return;
  const dx = from.left + from.width / 2 - (to.left + to.width / 2);
  const dy = from.top + from.height / 2 - (to.top + to.height / 2);
  const scale = Math.max(0.3, Math.min(2, from.width / to.width));
  node.animate([
    { transform: `translate(${dx}px, ${dy}px) scale(${scale})`, opacity: 0.7 },
    { transform: 'none', opacity: 1 },
  ], { duration: DURATION, easing: EASING, delay, fill: 'backwards' });
}

function ghost(node, from, to, { fade = true, turn = 0 } = {}) {
  const layer = $(ID.fx);
  const copy = node.cloneNode(true);
  copy.classList.add('ghost');
  copy.removeAttribute('aria-label');
  copy.style.left = `${from.left}px`;
  copy.style.top = `${from.top}px`;
  copy.style.width = `${from.width}px`;
  copy.style.height = `${from.height}px`;
  layer.append(copy);
  const dx = to.left + to.width / 2 - (from.left + from.width / 2);
  const dy = to.top + to.height / 2 - (from.top + from.height / 2);
  const scale = Math.max(0.2, Math.min(1.5, to.width / from.width));
  const animation = copy.animate([
    { transform: 'none', opacity: 1 },
    { transform: `translate(${dx}px, ${dy}px) scale(${scale}) rotate(${turn}deg)`, opacity: fade ? 0.2 : 1 },
  ], { duration: DURATION, easing: EASING, fill: 'forwards' });
  animation.onfinish = () => copy.remove();
  animation.oncancel = () => copy.remove();
}

function tableCards(state) {
  return state.pairs.flatMap((p) => (p.defence ? [p.attack, p.defence] : [p.attack]));
}

function defenderSeat(state) {
  return state.seats.find((s) => s.role === 'defending' || s.role === 'taking')?.seat;
}

export function animateChange(before, after, shot) {
  if (reduced.matches || !before || !shot || before.table !== after.table || after.view === 'lobby') return;
  const oldTable = new Set(tableCards(before));
  const newTable = new Set(tableCards(after));
  const newHand = new Set(after.hand);
  const seatRect = (seat) => shot.seats.get(seat) ?? null;

  // Played: a new card on the table comes from my hand or from its player's seat.
  after.pairs.forEach((pair) => {
    for (const [code, seat] of [[pair.attack, pair.by], [pair.defence, defenderSeat(before)]]) {
      if (!code || oldTable.has(code)) continue;
      const node = $(ID.pairs).querySelector(`.card[data-card="${code}"]`);
      if (node) fromRect(node, shot.hand.get(code) ?? seatRect(seat) ?? shot.stock);
    }
  });

  // Left the table: into my hand (taken), to the discard, or to the seat that took them.
  const gone = [...oldTable].filter((code) => !newTable.has(code));
  if (gone.length) {
    const discarded = after.discard > before.discard;
    const taker = before.seats.find((s) => {
      const now = after.seats.find((n) => n.seat === s.seat);
      return now && now.cards > s.cards && s.seat !== after.me;
    });
    const discardRect = rectOf($(ID.discard));
    gone.forEach((code, index) => {
      if (newHand.has(code)) return; // drawn again below, from the table
      const node = shot.nodes.get(code);
      const from = shot.table.get(code);
      const to = discarded ? discardRect : seatRect(taker?.seat);
      if (node && from && to) ghost(node, from, to, { fade: true, turn: discarded ? 90 + index * 7 : 0 });
    });
  }

  // New in my hand: from the table when taken, else dealt from the stock.
  let dealt = 0;
  for (const code of after.hand) {
    if (before.hand.includes(code)) continue;
    const node = $(ID.hand).querySelector(`.card[data-card="${code}"]`);
    if (!node) continue;
    const from = shot.table.get(code) ?? shot.stock;
    fromRect(node, from, shot.table.has(code) ? 0 : Math.min(dealt * 30, 120));
    if (!shot.table.has(code)) dealt += 1;
  }

  // Dealt to the others: a card back from the stock to each seat that drew.
  if (after.stock < before.stock && shot.stock) {
    const back = $(ID.stock).querySelector('.back-card');
    for (const seat of after.seats) {
      const was = before.seats.find((s) => s.seat === seat.seat);
      const to = seatRect(seat.seat);
      if (!was || seat.seat === after.me || seat.cards <= was.cards || !to || !back) continue;
      ghost(back, shot.stock, to, { fade: true });
    }
  }
}
