// Dragging a card from the hand with pointer events (mouse, pen and touch alike): onto an attack
// card to beat it, or anywhere on the table to lead, throw in or transfer. A short press is a tap.
// The table may be redrawn under a dragged card (a state arrives): the drag goes on, held by the
// page's root rather than by the card's old node, and is bound to the card's new node.
import { $ } from './dom.js';
import { ID } from './ids.js';

const THRESHOLD = 10;

function handCard(hand, code) {
  return hand.querySelector(`.card[data-card="${CSS.escape(code)}"]`);
}

export function enableDrag(hand, { canDrag, onHover, onDrop }) {
  let press = null;
  let droppedAt = 0;

  function under(x, y) {
    return document.elementFromPoint(x, y);
  }

  function end(event, cancelled) {
    if (!press || event.pointerId !== press.id) return;
    const { dragging, copy, card, code } = press;
    press = null;
    if (!dragging) return;
    droppedAt = performance.now();
    card.classList.remove('lifted');
    copy.remove();
    onHover(null);
    if (!cancelled) onDrop(code, under(event.clientX, event.clientY));
  }

  hand.addEventListener('pointerdown', (event) => {
    const card = event.target.closest('.card[data-card]');
    if (!card || event.button > 0 || !canDrag(card.dataset.card)) return;
    press = {
      card, code: card.dataset.card, x: event.clientX, y: event.clientY, id: event.pointerId,
      dragging: false, copy: null,
    };
  });

  window.addEventListener('pointermove', (event) => {
    if (!press || event.pointerId !== press.id) return;
    const dx = event.clientX - press.x;
    const dy = event.clientY - press.y;
    if (!press.dragging) {
      if (Math.hypot(dx, dy) < THRESHOLD) return;
      const rect = press.card.getBoundingClientRect();
      const copy = press.card.cloneNode(true);
      copy.classList.add('ghost', 'dragged');
      copy.removeAttribute('aria-label');
      copy.style.left = `${rect.left}px`;
      copy.style.top = `${rect.top}px`;
      copy.style.width = `${rect.width}px`;
      copy.style.height = `${rect.height}px`;
      $(ID.fx).append(copy);
      press.card.classList.add('lifted');
      press.dragging = true;
      press.copy = copy;
      // a touch is captured by the node it began on, which a redraw removes: the root holds it
      document.documentElement.setPointerCapture(event.pointerId);
    }
    press.copy.style.transform = `translate(${dx}px, ${dy}px) rotate(${dx / 40}deg) scale(1.06)`;
    onHover(press.code, under(event.clientX, event.clientY));
  });

  window.addEventListener('pointerup', (event) => end(event, false));
  window.addEventListener('pointercancel', (event) => end(event, true));

  function cancel() {
    if (press?.dragging) {
      press.card.classList.remove('lifted');
      press.copy.remove();
      onHover(null);
    }
    press = null;
  }

  return {
    // The click that follows a drop is not a tap.
    justDropped: () => performance.now() - droppedAt < 400,
    // After a redraw: the dragged card's new node, or no drag if the card left the hand.
    rebind: () => {
      if (!press) return;
      const card = handCard(hand, press.code);
      if (!card) {
        cancel();
        return;
      }
      press.card = card;
      if (press.dragging) card.classList.add('lifted');
    },
  };
}
