// The state drawn as a card table: opponents at the top, the deck and the pairs in the middle,
// what to do and the buttons, then the hand. Pure drawing; input lives in main.js.
//
// Each seat has a colour (its number's, app.css): its box, and a mark on every card it put on
// the table, so who played what reads at a glance; names are the state's short ones.
import { backSvg, cardLabel, faceSvg, parseCard, suitSvg, suitSymbol, trumpSvg } from './cards.js';
import { $, clockBar, h } from './dom.js';
import { fitText } from './fit.js';
import { asText, t } from './i18n.js';
import { ID } from './ids.js';
import {
  BUTTON_KINDS, MOVE_KINDS, cardsFor, defenceTargets, hasMove, movesWithCard, playableCards,
} from './moves.js';
import { hapticWarning } from './telegram.js';

const COUNTDOWN_S = 10;   // a turn clock shows its seconds from here on, and warns its player
const STRIP = 46;         // a hand card's bare strip, each way: a fingertip's 44 px and a margin
const ROWS_CARD_W = 56;   // a hand card's width in rows, where it saves a row
const LIFT_ROOM = 12;     // above one row, for a playable card's lift
const FAN_ROOM = 8;       // below one row, for its arc
const FAN_TURN = 2;       // degrees between neighbours in one row: their strips stay bare
// the smallest font (px) a label shrinks to before it takes another line (fit.js)
const FIT_FLOOR = { seat: 8.5, header: 9.5, by: 7.5 };

function seatOf(state, seat) {
  return state.seats.find((s) => s.seat === seat) ?? null;
}

function shortName(state, seat) {
  return seatOf(state, seat)?.short ?? '';
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

// A turn clock: its bar, and its seconds once few are left.
function turnClock(state, seat, clocks, onSeconds = null) {
  const clock = clockBar('turn-clock');
  const turn = state.clock?.turn;
  if (turn?.seat === seat) {
    clocks.push({
      element: clock, deadline: turn, onSeconds,
      say: (s) => (s <= COUNTDOWN_S ? t('app.seconds', { s }) : ''),
    });
  }
  return clock;
}

// A computer's strength as one to three dots, named for the ear.
function levelMark(seat) {
  if (!seat.bot || !seat.level) return null;
  return h('span', {
    class: 'level', role: 'img', 'aria-label': seat.level_text, title: seat.level_text,
    data: { level: seat.level },
  }, [h('i'), h('i'), h('i')]);
}

function renderSeats(state, clocks) {
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
    const known = seat.known?.length
      ? h('div', { class: 'known' }, seat.known.map((code) => h('span', {
        class: `chip suit-${parseCard(code).suit}`, text: cardLabel(code),
      })))
      : null;
    box.append(h('div', {
      class: 'seat', data: {
        seat: String(seat.seat), colour: String(seat.seat), role: seat.role || '',
        turn: seat.seat === turnSeat ? '1' : '0', away: seat.away ? '1' : '0',
        left: seat.left ? '1' : '0',
      },
    }, [
      pile,
      h('div', { class: 'seat-name', title: seat.name }, [seat.short, levelMark(seat)]),
      h('div', { class: 'seat-role', text: seat.role_text || '\u00a0' }),
      seat.app_closed ? h('div', { class: 'seat-closed', text: t('app.app_closed') }) : null,
      turnClock(state, seat.seat, clocks),
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
  stock.setAttribute('aria-label', `${t('app.stock')}: ${state.stock}`);
  stock.dataset.count = String(state.stock);
  if (state.stock > 0 && trump.card) {
    const trumpCard = h('div', {
      class: 'card trump-card', role: 'img',
      'aria-label': `${t('app.trump')}: ${cardLabel(trump.card)}`,
    }, [trumpSvg(trump.card)]);
    stock.append(trumpCard);
  }
  if (state.stock > 1 || (state.stock === 1 && !trump.card)) stock.append(backCard('stock-top'));
  if (state.stock === 0 && trump.suit) {
    stock.append(h('div', {
      class: `trump-suit suit-${trump.suit}`, role: 'img',
      'aria-label': `${t('app.trump')}: ${suitSymbol(trump.suit)}`,
    }, [suitSvg(trump.suit)]));
  }
  if (state.stock > 0) stock.append(h('span', { class: 'count', text: String(state.stock), 'aria-hidden': 'true' }));
  stock.append(h('div', {
    class: 'pile-label', text: t(state.stock > 0 ? 'app.stock' : 'app.trump'), 'aria-hidden': 'true',
  }));
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

// Who played a table card, in his seat's colour.
function player(state, seat) {
  if (seat === null || seat === undefined) return null;
  return h('span', { class: 'who', data: { colour: String(seat) }, text: shortName(state, seat) });
}

function renderPairs(state, ui) {
  const box = $(ID.pairs);
  box.replaceChildren();
  const targets = ui.chooser?.kind === 'card' ? new Set(defenceTargets(state, ui.chooser.card)) : new Set();
  state.pairs.forEach((pair, index) => {
    const isTarget = targets.has(index);
    const attack = faceCard(pair.attack, 'button', {
      class: `attack${isTarget ? ' target' : ''}`,
      data: { target: String(index), colour: String(pair.by ?? '') },
    });
    if (!isTarget) attack.setAttribute('aria-disabled', 'true');
    const group = h('div', {
      class: `pair${pair.defence ? ' beaten' : ''}`, role: 'group', data: { index: String(index) },
      'aria-label': pair.defence
        ? t('app.beaten_by', { attack: cardLabel(pair.attack), defence: cardLabel(pair.defence) })
        : cardLabel(pair.attack),
    }, [attack]);
    if (pair.defence) {
      group.append(faceCard(pair.defence, 'div', {
        class: 'defence', data: { colour: String(pair.beaten_by ?? '') },
      }));
    }
    group.append(h('div', { class: 'by' }, [player(state, pair.by), player(state, pair.beaten_by)]));
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

let warnedOf = null;   // the deadline of his turn he was last warned of: one warning each

function warnOf(due) {
  return (seconds) => {
    if (seconds > COUNTDOWN_S || warnedOf === due) return;
    warnedOf = due;
    hapticWarning();
  };
}

function renderMe(state, ui, clocks) {
  const me = seatOf(state, state.me);
  const strip = $(ID.meStrip);
  const hand = $(ID.hand);
  hand.replaceChildren();
  hand.setAttribute('aria-label', t('app.hand'));
  const section = $(ID.me);
  section.dataset.view = state.view;
  if (state.view !== 'seat' || !me) {
    strip.replaceChildren();
    if (state.view === 'spectator') hand.append(h('p', { class: 'watching', text: t('app.watching') }));
    layoutHand();
    return;
  }
  strip.replaceChildren(
    h('span', { class: 'me-name', data: { colour: String(me.seat) }, text: me.short || t('app.you') }),
    h('span', { class: 'me-role', text: me.role_text || '' }),
    turnClock(state, me.seat, clocks, warnOf(state.clock?.turn?.due)),
  );
  section.dataset.turn = state.clock?.turn?.seat === me.seat ? '1' : '0';
  const playable = ui.highlight ? playableCards(state) : new Set();
  const chooser = ui.chooser;
  let highlighted = playable;
  if (chooser && chooser.kind !== 'card') highlighted = new Set(cardsFor(state, chooser.kind));
  const anyPlayable = playable.size > 0;
  for (const code of state.hand) {
    const card = faceCard(code, 'button', { class: 'in-hand' });
    if (highlighted.has(code)) card.classList.add('playable');
    else {
      card.setAttribute('aria-disabled', 'true');
      if (anyPlayable) card.classList.add('dimmed');
    }
    if (chooser?.kind === 'card' && chooser.card === code) card.classList.add('selected');
    if (ui.sending === code) card.classList.add('sending');
    hand.append(card);
  }
  layoutHand();
}

// The hand: one row on a shallow arc while every card keeps a strip a fingertip can take (STRIP
// each way); else as many rows of smaller cards as that takes, each row showing STRIP of the
// cards behind it. Every card stays on the screen, however many (the table gives up the room).
export function layoutHand() {
  const hand = $(ID.hand);
  const cards = [...hand.querySelectorAll('.card')];
  hand.style.removeProperty('--hand-card-w');
  if (!cards.length) {
    hand.style.height = '';
    document.body.dataset.handRows = '0';
    return;
  }
  const count = cards.length;
  const width = hand.clientWidth;
  const perRowOf = (cardWidth) => Math.max(1, Math.floor((width - cardWidth) / STRIP) + 1);
  let cardWidth = cards[0].offsetWidth;
  // smaller cards in rows, unless they would not make fewer rows
  const small = Math.min(cardWidth, ROWS_CARD_W);
  if (Math.ceil(count / perRowOf(small)) < Math.ceil(count / perRowOf(cardWidth))) cardWidth = small;
  let perRow = perRowOf(cardWidth);
  const rows = Math.ceil(count / perRow);
  perRow = Math.ceil(count / rows);   // the rows evenly filled
  const fan = rows === 1;
  document.body.dataset.handRows = String(rows);
  hand.style.setProperty('--hand-card-w', `${cardWidth}px`);
  hand.style.height = `${LIFT_ROOM + cardWidth * 1.4 + (rows - 1) * STRIP + (fan ? FAN_ROOM : 0)}px`;
  cards.forEach((card, index) => {
    const row = Math.floor(index / perRow);
    const inRow = Math.min(perRow, count - row * perRow);
    const i = index - row * perRow;
    const room = inRow > 1 ? (width - cardWidth) / (inRow - 1) : 0;
    const step = Math.min(Math.max(cardWidth * 0.74, STRIP), room);
    const span = step * (inRow - 1) + cardWidth;
    const offset = i - (inRow - 1) / 2;
    card.style.setProperty('--x', `${((width - span) / 2 + i * step).toFixed(1)}px`);
    card.style.setProperty('--y', `${LIFT_ROOM + row * STRIP}px`);
    card.style.setProperty('--dy', fan ? `${(offset * offset * 0.6).toFixed(1)}px` : '0px');
    card.style.setProperty('--rot', fan ? `${(offset * FAN_TURN).toFixed(2)}deg` : '0deg');
    card.style.zIndex = String(index + 1);
  });
}

function panel(children) {
  return h('div', { class: 'panel' }, children);
}

function lobbyNote(lobby) {
  if (lobby.can_start) return t('app.lobby_host');
  return lobby.joined ? t('app.lobby_joined') : null;
}

function renderPanel(state) {
  const box = $(ID.panel);
  box.replaceChildren();
  if (state.view === 'lobby' && state.lobby) {
    const lobby = state.lobby;
    const note = lobbyNote(lobby);
    box.append(panel([
      h('p', { class: 'panel-title', text: t('app.lobby', { n: lobby.seats.length, max: lobby.max }) }),
      h('ul', { class: 'lobby-seats' }, lobby.seats.map((name) => h('li', { text: name }))),
      lobby.options ? h('p', { class: 'lobby-options', text: asText(lobby.options) }) : null,
      note ? h('p', { class: 'panel-note', text: note }) : null,
      lobby.can_join ? actionButton('join', 'app.join', 'primary big') : null,
      lobby.can_start ? actionButton('start', 'app.start', 'primary big') : null,
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

function windowClock(state) {
  const deadline = state.clock?.window ?? null;
  return {
    element: $(ID.windowBar), deadline,
    say: (s) => (deadline?.closing ? t('app.window_closing') : t('app.window', { s })),
  };
}

// The labels read whole: a smaller font, else another line (fit.js).
export function fitLabels() {
  fitText(document.querySelectorAll(`#${ID.seats} .seat-name, #${ID.seats} .seat-role`), FIT_FLOOR.seat);
  fitText([$(ID.header)], FIT_FLOOR.header);
  fitText(document.querySelectorAll(`#${ID.pairs} .by`), FIT_FLOOR.by);
}

// Draws the state; returns the clocks to run (clock.js).
export function render(state, ui) {
  const clocks = [];
  document.body.dataset.view = state.view;
  document.body.dataset.over = state.over ? '1' : '0';
  renderSeats(state, clocks);
  renderDeck(state);
  renderPairs(state, ui);
  renderStatus(state, ui);
  renderActions(state, ui);
  renderMe(state, ui, clocks);
  renderPanel(state);
  clocks.push(windowClock(state));
  return clocks;
}
