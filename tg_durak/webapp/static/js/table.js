// The state drawn as a card table: opponents at the top, the deck and the pairs in the middle,
// what to do and the buttons, then the hand as a fan. Pure drawing; input lives in main.js.
import { backSvg, cardLabel, faceSvg, parseCard, suitSvg, suitSymbol } from './cards.js';
import { $, bar, h } from './dom.js';
import { asText, t } from './i18n.js';
import { ID } from './ids.js';
import {
  BUTTON_KINDS, MOVE_KINDS, cardsFor, defenceTargets, hasMove, movesWithCard, playableCards,
} from './moves.js';

export function seatName(state, seat) {
  const found = state.seats.find((s) => s.seat === seat);
  if (seat === state.me && state.view === 'seat') return t('app.you');
  return found?.name ?? '';
}

function opponentsInOrder(state) {
  const seats = state.seats;
  if (state.view !== 'seat' || state.me === null || state.me === undefined) return seats;
  const mine = seats.findIndex((s) => s.seat === state.me);
  return [...seats.slice(mine + 1), ...seats.slice(0, Math.max(mine, 0))];
}

function faceCard(code, tag = 'div', props = {}) {
  const node = h(tag, { class: `card ${props.class ?? ''}`, data: { card: code, ...(props.data ?? {}) } });
  if (tag === 'button') node.type = 'button';
  else node.setAttribute('role', 'img');
  node.setAttribute('aria-label', cardLabel(code));
  node.append(faceSvg(code));
  return node;
}

function backCard(extraClass = '') {
  const node = h('div', { class: `card back-card ${extraClass}` });
  node.append(backSvg());
  return node;
}

function renderSeats(state, bars) {
  const box = $(ID.seats);
  box.replaceChildren();
  if (state.view === 'lobby') return;
  const turnSeat = state.clock?.turn?.seat;
  for (const seat of opponentsInOrder(state)) {
    const pile = h('div', {
      class: 'seat-cards', role: 'img',
      'aria-label': `${seat.name}: ${seat.cards_text}`,
    });
    const shown = Math.min(seat.cards, 3);
    for (let i = 0; i < shown; i += 1) {
      const back = backCard('mini');
      back.style.setProperty('--i', String(i - (shown - 1) / 2));
      pile.append(back);
    }
    pile.append(h('span', { class: 'count', text: String(seat.cards), 'aria-hidden': 'true' }));
    const turnBar = bar('turn-bar');
    if (seat.seat === turnSeat) bars.push({ element: turnBar, deadline: state.clock.turn });
    const known = seat.known?.length
      ? h('div', { class: 'known' }, seat.known.map((code) => h('span', {
        class: `chip suit-${parseCard(code).suit}`, text: cardLabel(code),
      })))
      : null;
    box.append(h('div', {
      class: 'seat', data: {
        seat: String(seat.seat), role: seat.role || '', turn: seat.seat === turnSeat ? '1' : '0',
        away: seat.away ? '1' : '0', left: seat.left ? '1' : '0',
      },
    }, [
      pile,
      h('div', { class: 'seat-name', text: seat.name }),
      h('div', { class: 'seat-role', text: seat.role_text || '\u00a0' }),
      seat.app_closed ? h('div', { class: 'seat-closed', text: t('app.app_closed') }) : null,
      turnBar,
      known,
    ]));
  }
  box.dataset.count = String(box.childElementCount);
}

function renderDeck(state) {
  const stock = $(ID.stock);
  const discard = $(ID.discard);
  stock.replaceChildren();
  discard.replaceChildren();
  const trump = state.trump ?? {};
  const stockLabel = `${t('app.stock')}: ${state.stock}`;
  stock.setAttribute('aria-label', stockLabel);
  if (state.stock > 0 && trump.card) {
    const trumpCard = faceCard(trump.card, 'div', { class: 'trump-card' });
    trumpCard.setAttribute('aria-label', `${t('app.trump')}: ${cardLabel(trump.card)}`);
    stock.append(trumpCard);
  }
  if (state.stock > 1 || (state.stock === 1 && !trump.card)) stock.append(backCard('stock-top'));
  if (state.stock === 0 && trump.suit) {
    stock.append(h('div', {
      class: 'trump-suit', role: 'img', 'aria-label': `${t('app.trump')}: ${suitSymbol(trump.suit)}`,
    }, [suitSvg(trump.suit)]));
  }
  stock.append(
    h('span', { class: 'count', text: String(state.stock), 'aria-hidden': 'true' }),
    h('div', { class: 'pile-label', text: t('app.stock'), 'aria-hidden': 'true' }),
  );
  discard.setAttribute('aria-label', `${t('app.discard')}: ${state.discard}`);
  const messy = Math.min(state.discard, 3);
  for (let i = 0; i < messy; i += 1) {
    const back = backCard('discarded');
    back.style.setProperty('--i', String(i));
    discard.append(back);
  }
  discard.append(
    h('span', { class: 'count', text: String(state.discard), 'aria-hidden': 'true' }),
    h('div', { class: 'pile-label', text: t('app.discard'), 'aria-hidden': 'true' }),
  );
}

function renderPairs(state, ui) {
  const box = $(ID.pairs);
  box.replaceChildren();
  const targets = ui.chooser?.kind === 'card' ? new Set(defenceTargets(state, ui.chooser.card)) : new Set();
  state.pairs.forEach((pair, index) => {
    const isTarget = targets.has(index);
    const attack = faceCard(pair.attack, 'button', {
      class: `attack${isTarget ? ' target' : ''}`, data: { target: String(index) },
    });
    if (!isTarget) attack.setAttribute('aria-disabled', 'true');
    const group = h('div', {
      class: `pair${pair.defence ? ' beaten' : ''}`, role: 'group', data: { index: String(index) },
      'aria-label': pair.defence
        ? t('app.beaten_by', { attack: cardLabel(pair.attack), defence: cardLabel(pair.defence) })
        : cardLabel(pair.attack),
    }, [attack]);
    if (pair.defence) group.append(faceCard(pair.defence, 'div', { class: 'defence' }));
    group.append(h('div', { class: 'by', text: seatName(state, pair.by) }));
    box.append(group);
  });
  box.dataset.count = String(state.pairs.length);
}

function renderStatus(state, ui) {
  const turn = $(ID.turn);
  const chooser = ui.chooser;
  let text = asText(state.text?.turn);
  if (chooser?.kind === 'card') text = t('app.choose_target', { card: cardLabel(chooser.card) });
  if (chooser && chooser.kind !== 'card') text = t('app.choose_transfer');
  if (state.view === 'spectator' && !text) text = t('app.watching');
  turn.textContent = text;
  turn.classList.toggle('choosing', Boolean(chooser));
  const last = (state.text?.last ?? []).slice(-3);
  $(ID.last).replaceChildren(...last.map((line) => h('li', { text: asText(line) })));
  $(ID.header).textContent = state.view === 'lobby' ? '' : asText(state.text?.header);
}

function actionButton(action, key, extraClass = '') {
  return h('button', { type: 'button', class: `action ${extraClass}`, data: { action }, text: t(key) });
}

function renderActions(state, ui) {
  const box = $(ID.actions);
  const buttons = [];
  const chooser = ui.chooser;
  if (chooser?.kind === 'card') {
    const kinds = new Set(movesWithCard(state, chooser.card).map((m) => m.move));
    for (const kind of BUTTON_KINDS.filter((k) => kinds.has(k))) {
      buttons.push(actionButton(kind, MOVE_KINDS[kind].button, 'primary'));
    }
    buttons.push(actionButton('cancel', 'app.close_chooser', 'quiet'));
  } else if (chooser) {
    buttons.push(actionButton('cancel', 'app.close_chooser', 'quiet'));
  } else if (state.view === 'seat' && !state.over) {
    for (const kind of BUTTON_KINDS.filter((k) => hasMove(state, k))) {
      buttons.push(actionButton(kind, MOVE_KINDS[kind].button, MOVE_KINDS[kind].look));
    }
  }
  box.replaceChildren(...buttons);
}

function renderMe(state, ui, bars) {
  const me = state.seats.find((s) => s.seat === state.me);
  const strip = $(ID.meStrip);
  const hand = $(ID.hand);
  hand.replaceChildren();
  hand.setAttribute('aria-label', t('app.hand'));
  const section = $(ID.me);
  section.dataset.view = state.view;
  if (state.view !== 'seat' || !me) {
    strip.replaceChildren();
    if (state.view === 'spectator') hand.append(h('p', { class: 'watching', text: t('app.watching') }));
    return;
  }
  const turnBar = bar('turn-bar');
  if (state.clock?.turn?.seat === me.seat) bars.push({ element: turnBar, deadline: state.clock.turn });
  strip.replaceChildren(
    h('span', { class: 'me-name', text: me.name || t('app.you') }),
    h('span', { class: 'me-role', text: me.role_text || '' }),
    turnBar,
  );
  section.dataset.turn = state.clock?.turn?.seat === me.seat ? '1' : '0';
  const playable = ui.highlight ? playableCards(state) : new Set();
  const chooser = ui.chooser;
  let highlighted = playable;
  if (chooser && chooser.kind !== 'card') highlighted = new Set(cardsFor(state, chooser.kind));
  const anyPlayable = playable.size > 0;
  state.hand.forEach((code, index) => {
    const card = faceCard(code, 'button', { class: 'in-hand' });
    card.style.setProperty('--order', String(index));
    const canPlay = highlighted.has(code);
    if (canPlay) card.classList.add('playable');
    else {
      card.setAttribute('aria-disabled', 'true');
      if (anyPlayable) card.classList.add('dimmed');
    }
    if (chooser?.kind === 'card' && chooser.card === code) card.classList.add('selected');
    if (ui.sending === code) card.classList.add('sending');
    hand.append(card);
  });
  layoutHand();
}

// The fan: cards overlap as much as the width needs, on a shallow arc; over 12 cards, two rows.
export function layoutHand() {
  const hand = $(ID.hand);
  const cards = [...hand.querySelectorAll('.card')];
  if (!cards.length) return;
  const width = hand.clientWidth;
  const cardWidth = cards[0].offsetWidth || 64;
  const cardHeight = cards[0].offsetHeight || cardWidth * 1.4;
  const rows = cards.length > 12 ? 2 : 1;
  const perRow = Math.ceil(cards.length / rows);
  hand.dataset.rows = String(rows);
  hand.style.setProperty('--rows', String(rows));
  cards.forEach((card, index) => {
    const row = Math.floor(index / perRow);
    const inRow = row === rows - 1 ? cards.length - perRow * (rows - 1) : perRow;
    const i = index - row * perRow;
    const centre = (inRow - 1) / 2;
    const spread = Math.min(5, 30 / Math.max(inRow, 1));
    // the outer cards lean out: keep their top corners inside (rotation about 130% of the height)
    const lean = (centre * spread * Math.PI) / 180;
    const pad = Math.max(0, 1.3 * cardHeight * Math.sin(lean) - (cardWidth / 2) * (1 - Math.cos(lean)));
    const room = width - 2 * pad;
    const step = inRow > 1 ? Math.min(cardWidth * 0.66, (room - cardWidth) / (inRow - 1)) : 0;
    const span = step * (inRow - 1) + cardWidth;
    const offset = i - centre;
    card.style.setProperty('--x', `${(width - span) / 2 + i * step}px`);
    card.style.setProperty('--dy', `${(offset * offset * 1.1).toFixed(1)}px`);
    card.style.setProperty('--rot', `${(offset * spread).toFixed(2)}deg`);
    card.style.setProperty('--row', String(row));
    card.style.zIndex = String(index + 1);
  });
}

function panel(children) {
  return h('div', { class: 'panel' }, children);
}

function renderPanel(state) {
  const box = $(ID.panel);
  box.replaceChildren();
  if (state.view === 'lobby' && state.lobby) {
    const lobby = state.lobby;
    box.append(panel([
      h('p', { class: 'panel-title', text: t('app.lobby', { n: lobby.seats.length, max: lobby.max }) }),
      h('ul', { class: 'lobby-seats' }, lobby.seats.map((name) => h('li', { text: name }))),
      lobby.joined ? h('p', { class: 'panel-note', text: t('app.lobby_joined') }) : null,
      lobby.can_join && !lobby.joined ? actionButton('join', 'app.join', 'primary big') : null,
    ]));
  } else if (state.over) {
    const again = state.again === 'rematch' ? 'app.rematch' : state.again === 'again' ? 'app.again' : null;
    box.append(panel([
      h('ul', { class: 'result' }, (state.text?.result ?? []).map((line) => h('li', { text: asText(line) }))),
      again ? actionButton('again', again, 'primary big') : null,
    ]));
  }
  box.hidden = !box.childElementCount;
}

export function render(state, ui) {
  const bars = [];
  document.body.dataset.view = state.view;
  document.body.dataset.over = state.over ? '1' : '0';
  renderSeats(state, bars);
  renderDeck(state);
  renderPairs(state, ui);
  renderStatus(state, ui);
  renderActions(state, ui);
  renderMe(state, ui, bars);
  renderPanel(state);
  const windowBar = $(ID.windowBar);
  bars.push({ element: windowBar, deadline: state.clock?.window ?? null });
  return bars;
}
