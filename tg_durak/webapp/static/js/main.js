// The page's one owner of state: frames in, a drawing out, taps and drops turned into moves.
import { installSprite, suitSvg } from './cards.js';
import { setClocks, syncClock } from './clock.js';
import { $ } from './dom.js';
import { enableDrag } from './drag.js';
import { animateChange, snapshot } from './fx.js';
import { isChoiceButton, renderHome, shownChoice } from './home.js';
import { chooseLanguage, setCatalog, t } from './i18n.js';
import { ID } from './ids.js';
import { readLaunch } from './launch.js';
import {
  MOVE_KINDS, cardsFor, dropOnTable, findMove, meantMove, moveFrame, moveOnto, movesWithCard,
  onAttackCard,
} from './moves.js';
import { CLOSE_NO_TABLE, DOWN, UP } from './protocol.js';
import { Connection } from './socket.js';
import { fitLabels, layoutHand, render } from './table.js';
import { hapticAccepted, hapticRefused, setBackHandler, startSdk, whenSdkLoads } from './telegram.js';
import { applyTheme } from './theme.js';

const PENDING_LIMIT_MS = 10000;
const TOAST_MS = 3200;
const SHAKE_MS = 360;
const FOUR_COLOUR_KEY = 'tg-durak.four-colour';
const reducedMotion = matchMedia('(prefers-reduced-motion: reduce)');

const body = document.body;

let connection = null;
let state = null;
let welcomed = false;  // the current socket's welcome came: its first state makes the page live
let live = false;      // that state came: moves may go
let pending = null;    // {id, card, timer}: a frame sent, its answer not yet in
let nextId = 1;
let lastSent = { id: 0, card: null };   // the answer may come before or after the state it caused
let toastTimer = 0;
let drag = null;
// The quick game's choice he last made or was shown: the server keeps it with the socket, so a
// new socket (a dropped connection, a restarted bot) starts from his settings and is told it again.
let choice = null;
const ui = { highlight: false, inputOpen: false, chooser: null, sending: null };

function canSend() {
  return Boolean(connection && live && state && !pending);
}

function showScreen(text) {
  const screen = $(ID.screen);
  screen.hidden = !text;
  $(ID.screenText).textContent = text || '';
}

function showToast(text) {
  const toast = $(ID.toast);
  clearTimeout(toastTimer);
  toast.textContent = text || '';
  toast.hidden = !text;
  if (text) toastTimer = setTimeout(() => { toast.hidden = true; }, TOAST_MS);
}

// Offline, the banner says so, the hand is greyed and the clocks stand still (app.css, clock.js).
function setLive(value) {
  live = value;
  body.dataset.connected = value ? '1' : '0';
  const banner = $(ID.offline);
  banner.textContent = t('app.reconnecting');
  banner.hidden = value || !state;
}

// The app with no table: the quick game (home.js), no hand, no clocks.
function isHome(s) {
  return s?.view === 'home';
}

function draw() {
  if (!state) return;
  if (isHome(state)) {
    ui.chooser = null;
    body.dataset.busy = pending ? '1' : '0';
    body.dataset.input = '0';
    setClocks(renderHome(state), live);
    setBackHandler(null);
    return;
  }
  // while a move is on its way the hand keeps its look, but takes no second move
  ui.highlight = live && state.view === 'seat' && !state.over;
  ui.inputOpen = ui.highlight && canSend();
  if (!ui.inputOpen) ui.chooser = null;
  body.dataset.busy = pending ? '1' : '0';
  body.dataset.input = ui.inputOpen ? '1' : '0';
  const clocks = render(state, ui);
  fitTable();
  fitLabels();
  setClocks(clocks, live);
  drag?.rebind();
  setBackHandler(ui.chooser ? closeChooser : null);
}

// Table cards as large as six pairs (more in a transfer game) allow in the space left over: the
// deck column is 1.23 of a card wide (app.css), a pair 14px wider and 34px taller than its card.
function fitTable() {
  const table = $(ID.table);
  const count = Math.max(6, state?.pairs.length ?? 0);
  const style = getComputedStyle(table);
  const width = table.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - 8;
  const height = table.clientHeight - parseFloat(style.paddingTop) - parseFloat(style.paddingBottom);
  if (width <= 0 || height <= 0) return;
  let best = 0;
  for (let rows = 1; rows <= count; rows += 1) {
    const columns = Math.ceil(count / rows);
    const byWidth = (width - columns * 14 - (columns - 1) * 12) / (columns + 1.23);
    const byHeight = (height - rows * 34 - (rows - 1) * 8) / rows / 1.4;
    best = Math.max(best, Math.min(byWidth, byHeight));
  }
  table.style.setProperty('--tcard-w', `${Math.max(18, Math.min(best, 100)).toFixed(1)}px`);
}

// A refused move: the card shakes and the reason shows (the server's, or the page's own when
// the move never left it).
function refuse(card, text) {
  hapticRefused();
  showToast(text);
  const node = card && $(ID.hand).querySelector(`.card[data-card="${CSS.escape(card)}"]`);
  if (!node) return;
  node.classList.add('refused');
  const shake = reducedMotion.matches ? null : node.animate(
    [0, -7, 7, -5, 5, 0].map((x) => ({ transform: `translateX(${x}px)` })),
    { duration: SHAKE_MS, easing: 'ease-in-out' },
  );
  const done = () => node.classList.remove('refused');
  if (shake) shake.onfinish = done;
  else setTimeout(done, SHAKE_MS);
}

function releasePending() {
  if (!pending) return;
  clearTimeout(pending.timer);
  pending = null;
  ui.sending = null;
}

// No answer in time: the move may or may not have counted, and the next state tells. The page
// never sends it again.
function answerOverdue() {
  releasePending();
  showToast(t('app.answer_late'));
  draw();
}

// Sends a frame now, or says why not: offline (nothing is kept to send later), or a frame is
// already on its way. Whether it went.
function sendFrame(frame, card = null) {
  if (pending || !state) return false;
  if (!canSend()) {
    refuse(card, t('app.offline_move'));
    return false;
  }
  const id = nextId;
  nextId += 1;
  if (!connection.send({ ...frame, id })) {
    refuse(card, t('app.offline_move'));
    return false;
  }
  lastSent = { id, card };
  pending = { id, card, timer: setTimeout(answerOverdue, PENDING_LIMIT_MS) };
  ui.sending = card;
  ui.chooser = null;
  draw();
  return true;
}

function sendMove(move) {
  if (move) sendFrame(moveFrame(state, move), move.card ?? null);
}

function openChooser(chooser) {
  ui.chooser = chooser;
  draw();
}

function closeChooser() {
  if (!ui.chooser) return;
  ui.chooser = null;
  draw();
}

// Whether his cards may be played now: his seat, the game on, no move on its way. Offline they
// may, to be told the move is not sent.
function handInPlay() {
  return Boolean(state && state.view === 'seat' && !state.over && !pending);
}

function tapHandCard(card) {
  if (!handInPlay()) return;
  if (!live) {
    refuse(card, t('app.offline_move'));
    return;
  }
  const chooser = ui.chooser;
  if (chooser && chooser.kind !== 'card') {
    if (cardsFor(state, chooser.kind).includes(card)) {
      sendMove({ move: chooser.kind, card });
      return;
    }
    ui.chooser = null;
  }
  if (chooser?.kind === 'card' && chooser.card === card) {
    closeChooser();
    return;
  }
  const moves = movesWithCard(state, card);
  if (moves.length > 1) openChooser({ kind: 'card', card });
  else sendMove(moves[0] ?? meantMove(state, card));
}

function tapTarget(target) {
  const chooser = ui.chooser;
  if (chooser?.kind === 'card') {
    const move = moveOnto(state, chooser.card, target);
    if (move) sendMove(move);
    else closeChooser();
  }
}

// A button whose move needs a card (Transfer, Show trump): with the chosen card, the only card,
// or a chooser among the cards.
function tapWithCard(kind) {
  if (ui.chooser?.kind === 'card') {
    sendMove(findMove(state, { move: kind, card: ui.chooser.card }));
    return;
  }
  const cards = cardsFor(state, kind);
  if (cards.length === 1) sendMove(findMove(state, { move: kind, card: cards[0] }));
  else if (cards.length > 1) openChooser({ kind });
}

function tapAction(action) {
  const kind = MOVE_KINDS[action];
  if (kind?.card) tapWithCard(action);
  else if (kind) sendMove(findMove(state, { move: action }));
  else if (action === 'cancel') closeChooser();
  else if (action === 'join') sendFrame({ type: UP.JOIN });
  else if (action === 'start') sendFrame({ type: UP.START });
  else if (action === 'again') sendFrame({ type: UP.AGAIN });
}

function tapQuick(node) {
  const tap = JSON.parse(node.dataset.quick);
  if (sendFrame({ ...tap, type: UP.QUICK }) && isChoiceButton(node)) choice = tap;
}

// A home state: the choice it shows is his from now on, unless it is a new socket's first,
// which shows his settings' choice instead of the one he made: that one is sent again.
function followChoice(first) {
  const shown = shownChoice(state);
  if (first && choice && shown && JSON.stringify(shown) !== JSON.stringify(choice)) {
    sendFrame({ ...choice, type: UP.QUICK });
  } else {
    choice = shown;
  }
}

function onClick(event) {
  if (drag?.justDropped()) return;
  const node = event.target.closest(
    `[data-action], [data-quick], #${ID.hand} .card[data-card], #${ID.pairs} .attack[data-target], #${ID.fourColour}`,
  );
  if (node?.id === ID.fourColour) {
    toggleFourColour();
    return;
  }
  if (!state) return;
  if (node?.dataset.quick) tapQuick(node);
  else if (node?.dataset.action) tapAction(node.dataset.action);
  else if (node?.matches(`#${ID.hand} .card`)) tapHandCard(node.dataset.card);
  else if (node?.matches(`#${ID.pairs} .attack`)) tapTarget(Number(node.dataset.target));
  else closeChooser();
}

// The legal move a card dropped on `element` makes, if any.
function dropTargetFor(card, element) {
  const attack = element?.closest(`#${ID.pairs} .attack[data-target]`);
  if (attack) return moveOnto(state, card, Number(attack.dataset.target));
  return element?.closest(`#${ID.table}`) ? dropOnTable(state, card) : null;
}

// What a drop on the table meant, legal or not (a refusal then says why); off the table, none.
function dropMeant(card, element) {
  const legal = dropTargetFor(card, element);
  if (legal) return legal;
  const attack = element?.closest(`#${ID.pairs} .attack[data-target]`);
  if (attack) return { move: 'defend', card, target: Number(attack.dataset.target) };
  return element?.closest(`#${ID.table}`) ? meantMove(state, card) : null;
}

function setupDrag() {
  drag = enableDrag($(ID.hand), {
    canDrag: () => handInPlay(),
    onHover: (card, element) => {
      for (const node of document.querySelectorAll('.drop-ok')) node.classList.remove('drop-ok');
      if (!card) return;
      const move = dropTargetFor(card, element);
      if (move && onAttackCard(move)) {
        $(ID.pairs).querySelector(`.attack[data-target="${move.target}"]`)?.classList.add('drop-ok');
      } else if (move) $(ID.table).classList.add('drop-ok');
    },
    onDrop: (card, element) => {
      ui.chooser = null;
      const move = handInPlay() ? dropMeant(card, element) : null;
      if (move) sendMove(move);
      else draw();
    },
  });
}

function applyFourColour(on) {
  body.classList.toggle('four-colour', on);
  $(ID.fourColour).setAttribute('aria-pressed', on ? 'true' : 'false');
}

function toggleFourColour() {
  const on = !body.classList.contains('four-colour');
  try {
    localStorage.setItem(FOUR_COLOUR_KEY, on ? '1' : '0');
  } catch {
    // storage may be off in a private webview: the option then lasts for this visit
  }
  applyFourColour(on);
}

function labelStatics() {
  document.title = t('app.title');
  $(ID.fourColour).setAttribute('aria-label', t('app.four_colour'));
  $(ID.fourColour).title = t('app.four_colour');
  $(ID.table).setAttribute('aria-label', t('app.table'));
}

function onFrame(frame) {
  if (frame.type === DOWN.WELCOME) {
    setCatalog(frame.strings, frame.ranks, frame.locale);
    labelStatics();
    welcomed = true;   // the state follows: the page is live once it shows it
  } else if (frame.type === DOWN.STATE) {
    const first = !live;   // the socket's first state
    const before = state;
    const shot = before ? snapshot() : null;
    releasePending();
    ui.chooser = null;
    state = frame;
    syncClock(frame.clock?.now);
    body.dataset.version = String(frame.version);
    showScreen('');
    setLive(welcomed);
    draw();   // a card being dragged stays in the hand: the drag goes on (drag.js)
    if (!isHome(before) && !isHome(state)) animateChange(before, state, shot);
    if (isHome(state)) followChoice(first);
    else choice = null;   // back home after a game, the server's choice is the one to show
  } else if (frame.type === DOWN.ANSWER) {
    if (frame.id !== lastSent.id) return;
    if (pending?.id === frame.id) releasePending();
    if (frame.ok) hapticAccepted();
    draw();
    if (!frame.ok) refuse(lastSent.card, frame.text);
  } else if (frame.type === DOWN.ERROR) {
    const card = pending?.card ?? null;
    releasePending();
    draw();
    refuse(card, frame.text || t(`app.${frame.code}`));
  }
}

function onDrop() {
  const lost = pending;
  welcomed = false;
  releasePending();
  setLive(false);
  if (!state) {
    showScreen(t('app.reconnecting'));
    return;
  }
  draw();
  if (lost) showToast(t('app.move_unconfirmed'));
}

function onFinal(code, lastError) {
  welcomed = false;
  releasePending();
  setLive(false);
  $(ID.offline).hidden = true;
  const key = code === CLOSE_NO_TABLE ? 'app.no_table' : 'app.launch_forged';
  showToast('');
  showScreen(lastError?.text || t(key));
  if (state) draw();
}

async function boot() {
  installSprite();
  $(ID.fourColour).replaceChildren(...['s', 'h', 'c', 'd'].map(suitSvg));
  const launch = readLaunch();
  await chooseLanguage(launch.languageCode);
  applyTheme(launch.themeParams);
  setLive(false);
  let fourColour = false;
  try {
    fourColour = localStorage.getItem(FOUR_COLOUR_KEY) === '1';
  } catch {
    fourColour = false;
  }
  applyFourColour(fourColour);
  whenSdkLoads((app) => startSdk(app, {
    onTheme: (params) => applyTheme(params),
    onViewport: (webApp) => {
      if (webApp.viewportStableHeight) {
        document.documentElement.style.setProperty('--app-height', `${webApp.viewportStableHeight}px`);
      }
    },
  }));
  document.addEventListener('click', onClick);
  document.addEventListener('keydown', (event) => {
    if (event.key === 'Escape') closeChooser();
  });
  new ResizeObserver(() => {
    if (!state || isHome(state)) return;
    layoutHand();
    fitTable();
    fitLabels();
  }).observe($(ID.app));
  setupDrag();
  if (!launch.initData) {
    showScreen(t('app.no_launch'));
    return;
  }
  showScreen(t('app.connecting'));
  connection = new Connection(launch.initData, { onFrame, onDrop, onFinal });
  connection.start();
}

boot();
